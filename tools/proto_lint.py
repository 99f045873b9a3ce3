"""Proto style check (buf STANDARD-like), in Python only.

Compiles every .proto to descriptors and checks: package = folder, ending in
a version (v1); at most one service per file, named ...Service, in a file named
<area>_service.proto; every RPC takes <Rpc>Request and returns <Rpc>Response,
each used by one RPC only; enum values prefixed with the enum's name in upper
snake case, the zero value <ENUM>_UNSPECIFIED; PascalCase messages and enums,
lower_snake_case fields.
"""

from __future__ import annotations

import pathlib
import re
import sys
import tempfile

import grpc_tools
from google.protobuf import descriptor_pb2
from grpc_tools import protoc

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTO = ROOT / "proto"
PASCAL = re.compile(r"^[A-Z][A-Za-z0-9]*$")
SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")


def upper_snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()


def descriptors() -> descriptor_pb2.FileDescriptorSet:
    files = sorted(str(p.relative_to(PROTO)) for p in PROTO.rglob("*.proto"))
    well_known = pathlib.Path(grpc_tools.__file__).parent / "_proto"
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "set.pb"
        code = protoc.main(["protoc", f"-I{PROTO}", f"-I{well_known}", f"--descriptor_set_out={out}", *files])
        if code != 0:
            sys.exit("protoc failed")
        return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


def check_file(f: descriptor_pb2.FileDescriptorProto) -> list[str]:
    problems = []
    folder = str(pathlib.Path(f.name).parent).replace("/", ".")
    if f.package != folder:
        problems.append(f"{f.name}: package {f.package} does not match folder {folder}")
    if not re.search(r"\.v\d+$", f.package):
        problems.append(f"{f.name}: package {f.package} must end in a version such as v1")
    if len(f.service) > 1:
        problems.append(f"{f.name}: one service per file")
    for service in f.service:
        problems += check_service(f, service)
    for message in f.message_type:
        problems += check_message(f.name, message)
    for enum in f.enum_type:
        problems += check_enum(f.name, enum)
    return problems


def check_service(f: descriptor_pb2.FileDescriptorProto, service: descriptor_pb2.ServiceDescriptorProto) -> list[str]:
    problems = []
    if not service.name.endswith("Service"):
        problems.append(f"{f.name}: service {service.name} must end in Service")
    if not pathlib.Path(f.name).name.endswith("_service.proto"):
        problems.append(f"{f.name}: a service lives in <area>_service.proto")
    seen: set[str] = set()
    for method in service.method:
        request, response = method.input_type.rsplit(".", 1)[-1], method.output_type.rsplit(".", 1)[-1]
        if request != f"{method.name}Request" or response != f"{method.name}Response":
            problems.append(f"{f.name}: {method.name} must take {method.name}Request and return {method.name}Response")
        for used in (request, response):
            if used in seen:
                problems.append(f"{f.name}: {used} is used by more than one RPC")
            seen.add(used)
    return problems


def check_message(file: str, message: descriptor_pb2.DescriptorProto) -> list[str]:
    problems = []
    if not message.options.map_entry and not PASCAL.match(message.name):
        problems.append(f"{file}: message {message.name} must be PascalCase")
    for field in message.field:
        if not SNAKE.match(field.name):
            problems.append(f"{file}: field {message.name}.{field.name} must be lower_snake_case")
    for nested in message.nested_type:
        problems += check_message(file, nested)
    for enum in message.enum_type:
        problems += check_enum(file, enum)
    return problems


def check_enum(file: str, enum: descriptor_pb2.EnumDescriptorProto) -> list[str]:
    problems = []
    prefix = upper_snake(enum.name) + "_"
    if not PASCAL.match(enum.name):
        problems.append(f"{file}: enum {enum.name} must be PascalCase")
    zero = [v for v in enum.value if v.number == 0]
    if not zero or zero[0].name != prefix + "UNSPECIFIED":
        problems.append(f"{file}: enum {enum.name} needs {prefix}UNSPECIFIED = 0")
    for value in enum.value:
        if not value.name.startswith(prefix):
            problems.append(f"{file}: enum value {value.name} must start with {prefix}")
    return problems


def main() -> int:
    problems = [p for f in descriptors().file if f.name.startswith("tabletop/") for p in check_file(f)]
    for problem in problems:
        print(problem)
    print(f"proto lint: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
