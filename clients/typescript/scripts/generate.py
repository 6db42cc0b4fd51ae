"""Generate the TypeScript stubs (protobuf-es) for the hustings protos into src/gen/.

Run through ``npm run generate`` (or ``npm run build``) in clients/typescript after ``npm ci``.
protoc is the one bundled with the project's Python dependency grpcio-tools, so nothing else is
downloaded; the plugin is ``protoc-gen-es`` from node_modules (pinned by package-lock.json).
The output is not committed: it is rebuilt from proto/ every time, so it cannot go stale.
"""

from __future__ import annotations

import pathlib
import shutil
import sys

try:
    from hustings.protos import include_dirs
except ModuleNotFoundError as missing:  # npm run build outside the venv that hustings is installed in
    if missing.name != "hustings":
        raise
    raise SystemExit(
        "scripts/generate.py needs the hustings package (for protoc and the protos' imports):"
        " activate the venv you installed it in (`. .venv/bin/activate` at the repository's root)"
        " and run `npm run build` again"
    ) from None

HERE = pathlib.Path(__file__).resolve().parent.parent
PROTO_ROOT = HERE.parent.parent / "proto"
OUT = HERE / "src" / "gen"
PLUGIN = HERE / "node_modules" / ".bin" / "protoc-gen-es"
# The googleapis files our protos import; protobuf-es ships the google.protobuf ones itself.
GOOGLEAPIS_FILES = ["google/api/annotations.proto", "google/api/http.proto"]


def main() -> int:
    """Run protoc with protoc-gen-es over every public proto (storage protos stay server-side)."""
    from grpc_tools import protoc

    if not PLUGIN.exists():
        print(f"{PLUGIN} is missing: run `npm ci` in {HERE} first", file=sys.stderr)
        return 1
    files = sorted(str(p.relative_to(PROTO_ROOT)) for p in (PROTO_ROOT / "hustings" / "v1").glob("*.proto"))
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    args = ["protoc", *(f"-I{d}" for d in include_dirs(PROTO_ROOT))]
    args += [f"--plugin=protoc-gen-es={PLUGIN}", f"--es_out={OUT}", "--es_opt=target=ts,import_extension=js,json_types=true"]
    if protoc.main(args + GOOGLEAPIS_FILES + files) != 0:
        print("protoc failed", file=sys.stderr)
        return 1
    print(f"generated {len(files) + len(GOOGLEAPIS_FILES)} files into {OUT.relative_to(HERE)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
