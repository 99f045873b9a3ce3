"""pki.ensure: one CA, one certificate per identity, created once and kept."""

from __future__ import annotations

import pathlib
import stat

from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID

from services.common.security import pki


def _mode(path: pathlib.Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_every_identity_gets_a_certificate_of_the_ca(tmp_path: pathlib.Path) -> None:
    pki_dir = pki.ensure(tmp_path / "pki")
    ca = x509.load_pem_x509_certificate((pki_dir / "ca.crt").read_bytes())
    for name in pki.IDENTITIES:
        found = pki.files(pki_dir, name)
        cert = x509.load_pem_x509_certificate(found.cert.read_bytes())
        cert.verify_directly_issued_by(ca)  # raises unless the CA signed it
        assert pki.identity_of(found.cert.read_bytes()) == name
        sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        assert sans.get_values_for_type(x509.DNSName) == [pki.server_name(name)]
        usage = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
        assert {ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH} <= set(usage)


def test_private_keys_are_readable_by_their_owner_only(tmp_path: pathlib.Path) -> None:
    pki_dir = pki.ensure(tmp_path / "pki")
    keys = sorted(pki_dir.glob("*.key"))
    assert [k.name for k in keys] == sorted(["ca.key", *(f"{n}.key" for n in pki.IDENTITIES)])
    assert all(_mode(key) == 0o600 for key in keys)
    assert _mode(pki_dir) == 0o700


def test_ensure_reuses_what_exists(tmp_path: pathlib.Path) -> None:
    pki_dir = pki.ensure(tmp_path / "pki")
    before = {p.name: p.read_bytes() for p in pki_dir.iterdir()}
    pki.ensure(pki_dir)
    assert {p.name: p.read_bytes() for p in pki_dir.iterdir()} == before


def test_ensure_adds_a_missing_identity_without_touching_the_others(tmp_path: pathlib.Path) -> None:
    pki_dir = pki.ensure(tmp_path / "pki", ["match"])
    match_cert = (pki_dir / "match.crt").read_bytes()
    pki.ensure(pki_dir, ["match", "dice"])
    assert (pki_dir / "match.crt").read_bytes() == match_cert
    assert pki.identity_of((pki_dir / "dice.crt").read_bytes()) == "dice"


def test_a_new_ca_reissues_every_identity(tmp_path: pathlib.Path) -> None:
    pki_dir = pki.ensure(tmp_path / "pki", ["deck"])
    old = (pki_dir / "deck.crt").read_bytes()
    (pki_dir / "ca.key").unlink()
    pki.ensure(pki_dir, ["deck"])
    ca = x509.load_pem_x509_certificate((pki_dir / "ca.crt").read_bytes())
    new = (pki_dir / "deck.crt").read_bytes()
    assert new != old
    x509.load_pem_x509_certificate(new).verify_directly_issued_by(ca)
