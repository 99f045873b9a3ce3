"""Mutual TLS between platform processes: credentials from settings, the caller of a call.

Every process holds a certificate of the platform CA (services/common/security/pki.py)
whose common name is its identity. Internal servers accept only callers
presenting such a certificate; clients check that the server's certificate
names the identity they meant to reach (`<name>.tabletop.internal`), whatever
address they dialled. There is no insecure mode: a process without its
credentials refuses to start.
"""

from __future__ import annotations

import pathlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

import grpc

from services.common.config import Settings
from services.common.security import pki

MISSING = (
    "TABLETOP_TLS_CA, TABLETOP_TLS_CERT and TABLETOP_TLS_KEY must name the platform CA certificate and "
    "this process's certificate and key (PEM); internal services have no insecure mode"
)


@dataclass(frozen=True)
class Material:
    """One identity's PEM credentials and the CA it trusts."""

    ca: bytes
    cert: bytes
    key: bytes

    @property
    def identity(self) -> str:
        return pki.identity_of(self.cert)

    @classmethod
    def read(cls, ca: str | pathlib.Path, cert: str | pathlib.Path, key: str | pathlib.Path) -> Material:
        return cls(pathlib.Path(ca).read_bytes(), pathlib.Path(cert).read_bytes(), pathlib.Path(key).read_bytes())


ChannelOption = tuple[str, int | str]
"""One grpc channel argument, e.g. ("grpc.keepalive_time_ms", 30_000)."""


@dataclass(frozen=True)
class Dial:
    """What a channel to one platform identity needs: credentials and the name to verify."""

    credentials: grpc.ChannelCredentials
    options: list[ChannelOption]


def material(settings: Settings) -> Material:
    """This process's credentials; exits with a clear message when they are not configured."""
    paths = (settings.tls_ca, settings.tls_cert, settings.tls_key)
    missing = [p for p in paths if not p or not pathlib.Path(p).is_file()]
    if missing:
        detail = ", ".join(repr(p) for p in missing)
        raise SystemExit(f"tabletop: refusing to start: {MISSING} (missing: {detail})")
    return Material.read(*paths)


def identity(settings: Settings) -> str:
    """Who this process is to the services it calls: its certificate's common name."""
    return material(settings).identity


def server_credentials(own: Material) -> grpc.ServerCredentials:
    # require_client_auth: a caller without a certificate of our CA fails the handshake.
    return grpc.ssl_server_credentials([(own.key, own.cert)], root_certificates=own.ca, require_client_auth=True)


def dial(own: Material, target: str) -> Dial:
    """Credentials for calling the service whose identity is `target`, as `own`."""
    credentials = grpc.ssl_channel_credentials(
        root_certificates=own.ca, private_key=own.key, certificate_chain=own.cert
    )
    # Addresses are whatever the deployment uses (127.0.0.1:port, a pod IP, several
    # replicas); the certificate must name the identity, not the address.
    return Dial(credentials, [("grpc.ssl_target_name_override", pki.server_name(target))])


def channel(addr: str, own: Material, target: str) -> grpc.Channel:
    """A blocking channel to `target` at `addr` (launchers, tests, tools)."""
    how = dial(own, target)
    return grpc.secure_channel(addr, how.credentials, options=how.options)


class Authenticated(Protocol):
    """A call's context that names its peer: grpc's, or a `KnownPeer`."""

    def auth_context(self) -> Mapping[str, Iterable[bytes]]: ...


class KnownPeer:
    """A context whose peer is known already, read with `caller` exactly as the certificate
    of a call over mutual TLS: an in-process call's caller, or the peer of an Exchange or
    Batch stream, read once for every call it carries (grpc builds a call's auth context
    anew each time it is asked)."""

    def __init__(self, caller: str) -> None:
        self._auth = {"x509_common_name": [caller.encode()]}

    def auth_context(self) -> Mapping[str, Iterable[bytes]]:
        return self._auth


def caller(context: Authenticated) -> str:
    """The identity of the peer of a call over mutual TLS ('' when there is none)."""
    names = list(context.auth_context().get("x509_common_name") or [])
    return names[0].decode() if names else ""
