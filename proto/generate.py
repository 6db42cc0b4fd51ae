"""Generate the Python code for the protos in this folder.

Run from anywhere: ``python proto/generate.py [OUT_DIR]``. The default output is
``clients/python`` (the ``hustings`` import package), where the generated modules are committed;
``tests/test_generated.py`` regenerates into a temporary folder and fails when they differ.
Without OUT_DIR it also rewrites the OpenAPI document (``python -m hustings.service.openapi``),
checked the same way by ``tests/test_openapi.py``. The TypeScript stubs are built from the protos
by ``npm run build`` in ``clients/typescript`` and are not committed.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

from grpc_tools import protoc

from hustings.protos import include_dirs

PROTO_ROOT = pathlib.Path(__file__).resolve().parent
DEFAULT_OUT = PROTO_ROOT.parent / "clients" / "python"


def proto_files() -> list[pathlib.Path]:
    """Every .proto of the project, sorted for a stable output."""
    return sorted(PROTO_ROOT.rglob("*.proto"))


def generate(out_dir: pathlib.Path) -> None:
    """Write *_pb2.py, *_pb2.pyi and *_pb2_grpc.py for every proto under ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    files = [str(p.relative_to(PROTO_ROOT)) for p in proto_files()]
    args = ["protoc", *(f"-I{d}" for d in include_dirs(PROTO_ROOT))]
    args += [f"--python_out={out_dir}", f"--pyi_out={out_dir}", f"--grpc_python_out={out_dir}"]
    if protoc.main(args + files) != 0:
        raise SystemExit("protoc failed")
    for package_dir in {(out_dir / f).parent for f in files}:
        # Make every generated folder a regular package, up to the import root.
        current = package_dir
        while current != out_dir:
            init = current / "__init__.py"
            if not init.exists():
                init.write_text("")
            current = current.parent


if __name__ == "__main__":
    if len(sys.argv) > 1:
        generate(pathlib.Path(sys.argv[1]))
    else:
        generate(DEFAULT_OUT)
        # A fresh interpreter, so that the OpenAPI generator imports the code just written.
        subprocess.run([sys.executable, "-m", "hustings.service.openapi"], check=True)
