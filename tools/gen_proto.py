"""Generate Python code for every .proto under proto/ into gen/ (import root `tabletop`)."""

from __future__ import annotations

import pathlib
import sys

import grpc_tools
from grpc_tools import protoc

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTO = ROOT / "proto"
GEN = ROOT / "gen"
# Connect and gRPC-Web stubs (the HTTP edge) for the client-facing API only;
# internal services speak gRPC over mutual TLS and need none.
CONNECT_PACKAGES = {PROTO / "tabletop" / "gateway" / "v1"}


def _plugin(name: str) -> str:
    """A protoc plugin installed next to this interpreter (the venv's bin/)."""
    return str(pathlib.Path(sys.executable).parent / name)


def main() -> int:
    GEN.mkdir(exist_ok=True)
    well_known = pathlib.Path(grpc_tools.__file__).parent / "_proto"
    packages = sorted({p.parent for p in PROTO.rglob("*.proto")})
    failed = []
    # One protoc run per package: a broken package does not stop the others.
    for package in packages:
        protos = sorted(str(p.relative_to(PROTO)) for p in package.glob("*.proto"))
        args = [
            "protoc",
            f"-I{PROTO}",
            f"-I{well_known}",
            f"--python_out={GEN}",
            f"--pyi_out={GEN}",
            f"--grpc_python_out={GEN}",
            *protos,
        ]
        if package in CONNECT_PACKAGES:
            args[1:1] = [
                f"--plugin=protoc-gen-connectrpc={_plugin('protoc-gen-connectrpc')}",
                f"--connectrpc_out={GEN}",
                # google.protobuf messages (what grpcio uses), not protobuf-py's.
                "--connectrpc_opt=protobuf=google",
            ]
        if protoc.main(args) != 0:
            failed.append(str(package.relative_to(PROTO)))
    # Regular packages, so mypy and importlib resolve `tabletop.*` unambiguously.
    for folder in [GEN / "tabletop", *(GEN / "tabletop").rglob("*")]:
        if folder.is_dir():
            (folder / "__init__.py").touch()
    if failed:
        print(f"protoc failed for: {', '.join(failed)}", file=sys.stderr)
        return 1
    print(f"generated {len(packages)} proto packages into gen/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
