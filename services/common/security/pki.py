"""The platform's own certificate authority: one CA, one key and certificate per identity.

A platform identity is the common name of its certificate (`match`, `dice`,
...). The same name, as `<name>.tabletop.internal`, is the certificate's DNS
SAN: clients dial whatever address they are given and check the server's
certificate against that name (gRPC's `ssl_target_name_override`), so a
service can only answer as the identity its certificate names, wherever it runs.

`ensure()` creates what is missing and reuses what exists, so a stack keeps its
CA across restarts. Private keys are written with mode 0600. Deployments
without the launcher can run `python -m services.common.security.pki DIR [NAME ...]`.
"""

from __future__ import annotations

import datetime
import os
import pathlib
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from services.common.security.private_files import write_private

DOMAIN = "tabletop.internal"
IDENTITIES = ("gateway", "match", "dice", "deck", "rules", "matchmaker")
CA_NAME = "tabletop-platform-ca"
CA_DAYS = 3650
LEAF_DAYS = 825
# A certificate closer than this to its end is issued again by ensure().
RENEW_BEFORE = datetime.timedelta(days=30)


@dataclass(frozen=True)
class Files:
    """Where one identity's credentials live."""

    ca: pathlib.Path
    cert: pathlib.Path
    key: pathlib.Path


def server_name(identity: str) -> str:
    """The DNS name a client expects in the certificate of `identity`."""
    return f"{identity}.{DOMAIN}"


def files(pki_dir: pathlib.Path, identity: str) -> Files:
    return Files(pki_dir / "ca.crt", pki_dir / f"{identity}.crt", pki_dir / f"{identity}.key")


def identity_of(cert_pem: bytes) -> str:
    """The platform identity a certificate stands for (its common name)."""
    cert = x509.load_pem_x509_certificate(cert_pem)
    names = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    return str(names[0].value) if names else ""


def ensure(pki_dir: pathlib.Path, names: Iterable[str] = IDENTITIES) -> pathlib.Path:
    """Create the CA and each identity's key and certificate unless they exist; the folder."""
    pki_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(pki_dir, 0o700)
    ca_key, ca_cert, fresh = _ensure_ca(pki_dir)
    for name in names:
        target = files(pki_dir, name)
        if fresh or not _usable(target, ca_cert):
            _issue(target, name, ca_key, ca_cert)
    return pki_dir


def _ensure_ca(pki_dir: pathlib.Path) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate, bool]:
    cert_path, key_path = pki_dir / "ca.crt", pki_dir / "ca.key"
    if cert_path.exists() and key_path.exists():
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
        assert isinstance(key, ec.EllipticCurvePrivateKey)
        return key, x509.load_pem_x509_certificate(cert_path.read_bytes()), False
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, CA_NAME)])
    cert = (
        _builder(name, name, key.public_key(), CA_DAYS)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(_key_usage(cert_sign=True), critical=True)
        .sign(key, hashes.SHA256())
    )
    write_private(key_path, _pem_key(key))
    _write(cert_path, cert.public_bytes(serialization.Encoding.PEM))
    return key, cert, True


def _usable(target: Files, ca_cert: x509.Certificate) -> bool:
    """The identity's files exist, were issued by this CA and are not about to end."""
    if not (target.cert.exists() and target.key.exists()):
        return False
    cert = x509.load_pem_x509_certificate(target.cert.read_bytes())
    if cert.issuer != ca_cert.subject:
        return False
    try:
        cert.verify_directly_issued_by(ca_cert)
    except (ValueError, TypeError, InvalidSignature):
        return False
    return cert.not_valid_after_utc - _now() > RENEW_BEFORE


def _issue(target: Files, name: str, ca_key: ec.EllipticCurvePrivateKey, ca_cert: x509.Certificate) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    # One certificate serves both ends: a process is a server to its callers
    # and a client of the services it calls.
    usage = x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH])
    cert = (
        _builder(subject, ca_cert.subject, key.public_key(), LEAF_DAYS)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_key_usage(cert_sign=False), critical=True)
        .add_extension(usage, critical=False)
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(server_name(name))]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    write_private(target.key, _pem_key(key))
    _write(target.cert, cert.public_bytes(serialization.Encoding.PEM))


def _builder(
    subject: x509.Name, issuer: x509.Name, public_key: ec.EllipticCurvePublicKey, days: int
) -> x509.CertificateBuilder:
    now = _now()
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        # An hour of slack for clocks that disagree a little.
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=days))
    )


def _key_usage(cert_sign: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=True,
        content_commitment=False,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=cert_sign,
        crl_sign=cert_sign,
        encipher_only=False,
        decipher_only=False,
    )


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def _write(path: pathlib.Path, data: bytes) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def main(argv: Sequence[str]) -> int:
    """`python -m services.common.security.pki DIR [NAME ...]`: ensure the CA and identities in DIR."""
    if not argv:
        print("usage: python -m services.common.security.pki DIR [NAME ...]", file=sys.stderr)
        return 2
    pki_dir = ensure(pathlib.Path(argv[0]), argv[1:] or IDENTITIES)
    for name in argv[1:] or IDENTITIES:
        found = files(pki_dir, name)
        print(f"{name}: TABLETOP_TLS_CA={found.ca} TABLETOP_TLS_CERT={found.cert} TABLETOP_TLS_KEY={found.key}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
