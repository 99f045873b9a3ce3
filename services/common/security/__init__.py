"""Who is calling and what they may do: mutual TLS identities (pki, tls), the policy table
(authz), the match's chance grants, token signing keys and tokens, private files."""
