//! Certificate authorities and the leaf certificates they sign, shaped as
//! k3s shapes them: ECDSA P-256 keys written as SEC1 `EC PRIVATE KEY`; a CA
//! named `<prefix>-ca@<unix time>` with no organization, key usages digital
//! signature, key encipherment and certificate signing, valid ten years from
//! an hour before it was made; leaves valid a year, their file holding the
//! leaf and then the CA.

use std::time::{Duration, SystemTime};

use p256::pkcs8::EncodePrivateKey;
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, SanType,
};

use crate::Error;

const HOUR: Duration = Duration::from_secs(3600);
const DAY: Duration = Duration::from_secs(86_400);

/// A CA: its certificate and key, both PEM.
#[derive(Clone, Debug)]
pub struct Ca {
    pub cert_pem: String,
    pub key_pem: String,
}

/// A signed leaf: certificate chain (leaf, then CA) and key, both PEM.
#[derive(Clone, Debug)]
pub struct Leaf {
    pub cert_pem: String,
    pub key_pem: String,
}

fn cert_err(e: impl std::fmt::Display) -> Error {
    Error::Cert(e.to_string())
}

/// The named-curve OID of P-256 (prime256v1).
const P256_OID: sec1::der::asn1::ObjectIdentifier =
    sec1::der::asn1::ObjectIdentifier::new_unwrap("1.2.840.10045.3.1.7");

/// A fresh P-256 key, as (SEC1 PEM, rcgen key pair). The SEC1 structure
/// names its curve, as OpenSSL and Go's x509 require to read it back.
fn new_key() -> Result<(String, KeyPair), Error> {
    use p256::elliptic_curve::sec1::ToEncodedPoint;
    use sec1::der::Encode;
    let secret = p256::SecretKey::random(&mut rand_core::OsRng);
    let scalar = secret.to_bytes();
    let point = secret.public_key().to_encoded_point(false);
    let der = sec1::EcPrivateKey {
        private_key: &scalar,
        parameters: Some(sec1::EcParameters::NamedCurve(P256_OID)),
        public_key: Some(point.as_bytes()),
    }
    .to_der()
    .map_err(cert_err)?;
    let sec1_pem = pem::encode_config(
        &pem::Pem::new("EC PRIVATE KEY", der),
        pem::EncodeConfig::new().set_line_ending(pem::LineEnding::LF),
    );
    let pkcs8 = secret.to_pkcs8_der().map_err(cert_err)?;
    let pair = KeyPair::try_from(pkcs8.as_bytes()).map_err(cert_err)?;
    Ok((sec1_pem, pair))
}

/// Reads a key file into a key pair rcgen can sign with: PKCS#8 of any kind
/// rcgen signs with, SEC1 P-256 (what k3s writes for a CA), or PKCS#1 RSA
/// (what an adopted cluster's custom CA may hold).
fn load_key(pem_text: &str) -> Result<KeyPair, Error> {
    if let Ok(pair) = KeyPair::from_pem(pem_text) {
        return Ok(pair);
    }
    if let Ok(secret) = p256::SecretKey::from_sec1_pem(pem_text) {
        let pkcs8 = secret.to_pkcs8_der().map_err(cert_err)?;
        return KeyPair::try_from(pkcs8.as_bytes()).map_err(cert_err);
    }
    use rsa::pkcs1::DecodeRsaPrivateKey;
    use rsa::pkcs8::EncodePrivateKey as _;
    let key = rsa::RsaPrivateKey::from_pkcs1_pem(pem_text).map_err(|_| {
        Error::Cert(
            "not a private key liken can sign with (ECDSA P-256 or P-384, RSA, Ed25519; \
             PEM as PKCS#8, SEC1 or PKCS#1)"
                .to_owned(),
        )
    })?;
    let pkcs8 = key.to_pkcs8_der().map_err(cert_err)?;
    KeyPair::try_from(pkcs8.as_bytes()).map_err(cert_err)
}

fn unix(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs()
}

impl Ca {
    /// A new self-signed CA named `<prefix>-ca@<unix time of now>`.
    pub fn mint(prefix: &str, now: SystemTime) -> Result<Ca, Error> {
        let (key_pem, key) = new_key()?;
        let mut params = CertificateParams::default();
        let mut dn = DistinguishedName::new();
        dn.push(DnType::CommonName, format!("{prefix}-ca@{}", unix(now)));
        params.distinguished_name = dn;
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
            KeyUsagePurpose::KeyCertSign,
        ];
        let not_before = now - HOUR;
        params.not_before = not_before.into();
        params.not_after = (not_before + 3650 * DAY).into();
        let cert = params.self_signed(&key).map_err(cert_err)?;
        Ok(Ca {
            cert_pem: cert.pem(),
            key_pem,
        })
    }

    /// Whether the key file belongs to the certificate: a CA whose key signs
    /// for another certificate would mint credentials nothing trusts.
    /// Returns what is wrong, in words for a message about the key file.
    pub fn check_pair(&self) -> Result<(), String> {
        let key = load_key(&self.key_pem).map_err(|e| match e {
            Error::Cert(m) => format!("is {m}"),
            other => other.to_string(),
        })?;
        let block = pem::parse(&self.cert_pem)
            .map_err(|e| format!("belongs to a certificate that is not PEM: {e}"))?;
        let (_, cert) = x509_parser::parse_x509_certificate(block.contents())
            .map_err(|e| format!("belongs to a certificate that does not parse: {e}"))?;
        if cert.public_key().subject_public_key.data.as_ref() != key.public_key_raw() {
            return Err("does not match its certificate (the .crt beside it): \
                        copy both halves of the pair from the same server"
                .to_owned());
        }
        Ok(())
    }

    fn issuer(&self) -> Result<Issuer<'static, KeyPair>, Error> {
        let key = load_key(&self.key_pem)?;
        Issuer::from_ca_cert_pem(&self.cert_pem, key).map_err(cert_err)
    }

    fn sign(&self, mut params: CertificateParams, now: SystemTime) -> Result<Leaf, Error> {
        let (key_pem, key) = new_key()?;
        params.not_before = (now - HOUR).into();
        params.not_after = (now - HOUR + 365 * DAY).into();
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        let cert = params.signed_by(&key, &self.issuer()?).map_err(cert_err)?;
        Ok(Leaf {
            cert_pem: format!("{}{}", cert.pem(), self.cert_pem),
            key_pem,
        })
    }

    /// A client certificate for `common_name` in `organizations`, the way
    /// Kubernetes reads a user and its groups (the admin is
    /// `system:admin` in `system:masters`).
    pub fn client(
        &self,
        common_name: &str,
        organizations: &[&str],
        now: SystemTime,
    ) -> Result<Leaf, Error> {
        let mut params = CertificateParams::default();
        let mut dn = DistinguishedName::new();
        for o in organizations {
            dn.push(DnType::OrganizationName, *o);
        }
        dn.push(DnType::CommonName, common_name);
        params.distinguished_name = dn;
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        self.sign(params, now)
    }

    /// A serving certificate for the DNS names and IP addresses in `names`.
    pub fn server(
        &self,
        common_name: &str,
        names: &[&str],
        now: SystemTime,
    ) -> Result<Leaf, Error> {
        let mut params = CertificateParams::default();
        let mut dn = DistinguishedName::new();
        dn.push(DnType::CommonName, common_name);
        params.distinguished_name = dn;
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        for name in names {
            params
                .subject_alt_names
                .push(match name.parse::<std::net::IpAddr>() {
                    Ok(ip) => SanType::IpAddress(ip),
                    Err(_) => SanType::DnsName((*name).try_into().map_err(cert_err)?),
                });
        }
        self.sign(params, now)
    }
}

/// A new RSA-2048 service-account signing key, PKCS#1 PEM as k3s writes it.
pub(crate) fn service_key() -> Result<String, Error> {
    use rsa::pkcs1::EncodeRsaPrivateKey;
    let key = rsa::RsaPrivateKey::new(&mut rand_core::OsRng, 2048).map_err(cert_err)?;
    Ok(key
        .to_pkcs1_pem(rsa::pkcs1::LineEnding::LF)
        .map_err(cert_err)?
        .to_string())
}
