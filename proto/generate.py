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
import re
import subprocess
import sys
import tomllib

from grpc_tools import protoc

from hustings.protos import include_dirs

PROTO_ROOT = pathlib.Path(__file__).resolve().parent
DEFAULT_OUT = PROTO_ROOT.parent / "clients" / "python"


# The gRPC stubs refuse to load under a grpcio older than the grpcio-tools that wrote them. They
# are written to ask for the grpcio the project requires (its lower bound in pyproject.toml), so
# that a regeneration with a newer grpcio-tools changes nothing and still loads where the
# project's own lower bound is installed.
GRPC_VERSION_LINE = re.compile(r"^GRPC_GENERATED_VERSION = '[^']*'$", re.MULTILINE)


def required_grpcio() -> str:
    """The lower bound of grpcio in pyproject.toml."""
    project = tomllib.loads((PROTO_ROOT.parent / "pyproject.toml").read_text())["project"]
    for requirement in project["dependencies"]:
        found = re.fullmatch(r"grpcio>=([0-9.]+)", requirement.replace(" ", ""))
        if found:
            return found.group(1)
    raise SystemExit("pyproject.toml names no lower bound of grpcio")


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
    wanted = f"GRPC_GENERATED_VERSION = '{required_grpcio()}'"
    for stub in out_dir.rglob("*_pb2_grpc.py"):
        text = stub.read_text()
        stub.write_text(GRPC_VERSION_LINE.sub(wanted, text, count=1))
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
