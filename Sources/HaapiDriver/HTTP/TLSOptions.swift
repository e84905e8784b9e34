import Crypto
import Foundation
import NIOSSL

/// A server key the client accepts for a host: the Base64 SHA-256 of the certificate's
/// SubjectPublicKeyInfo (the `pin-sha256` value of RFC 7469).
public struct KeyPinning: Sendable, Hashable {
    public let hostname: String
    public let publicKeyHash: String

    public init(hostname: String, publicKeyHash: String) {
        self.hostname = hostname
        self.publicKeyHash = publicKeyHash
    }

    /// The pin of a certificate (PEM or DER): what to put in `publicKeyHash`.
    public static func publicKeyHash(ofCertificate bytes: [UInt8], format: NIOSSLSerializationFormats = .pem) throws -> String {
        let certificate = try NIOSSLCertificate(bytes: bytes, format: format)
        return try publicKeyHash(of: certificate)
    }

    static func publicKeyHash(of certificate: NIOSSLCertificate) throws -> String {
        Data(SHA256.hash(data: try certificate.extractPublicKey().toSPKIBytes())).base64EncodedString()
    }
}

/// How a transport secures its TLS connections beyond the system defaults.
public struct TLSOptions: Sendable {
    /// A client certificate and its key (mutual TLS), from a PKCS#12 archive.
    public var clientIdentity: ClientIdentity?
    /// When set, only these CA or self-signed certificates (PEM) are trusted, instead of the system store.
    public var trustedCertificatesPEM: [String]?
    public var isValidatingHostname: Bool
    /// When set for a host, its connections are accepted only if the leaf key matches one of the pins;
    /// the pin replaces the CA check for that host.
    public var keyPinnings: [KeyPinning]

    public init(clientIdentity: ClientIdentity? = nil, trustedCertificatesPEM: [String]? = nil, isValidatingHostname: Bool = true,
                keyPinnings: [KeyPinning] = []) {
        self.clientIdentity = clientIdentity
        self.trustedCertificatesPEM = trustedCertificatesPEM
        self.isValidatingHostname = isValidatingHostname
        self.keyPinnings = keyPinnings
    }

    public struct ClientIdentity: Sendable {
        public let certificateChain: [NIOSSLCertificate]
        public let privateKey: NIOSSLPrivateKey

        /// Opens a PKCS#12 archive; a wrong passphrase or a damaged file is an error here, not at the first request.
        public init(pkcs12: [UInt8], passphrase: String) throws {
            let bundle = try NIOSSLPKCS12Bundle(buffer: pkcs12, passphrase: Array(passphrase.utf8))
            certificateChain = bundle.certificateChain
            privateKey = bundle.privateKey
        }
    }

    func pins(for host: String) -> Set<String> {
        Set(keyPinnings.filter { $0.hostname.caseInsensitiveCompare(host) == .orderedSame }.map(\.publicKeyHash))
    }

    /// The NIOSSL configuration for ordinary (not pinned) connections.
    func makeConfiguration() throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        if let identity = clientIdentity {
            configuration.certificateChain = identity.certificateChain.map { .certificate($0) }
            configuration.privateKey = .privateKey(identity.privateKey)
        }
        if let pems = trustedCertificatesPEM {
            let certificates = try pems.flatMap { try NIOSSLCertificate.fromPEMBytes(Array($0.utf8)) }
            configuration.trustRoots = .certificates(certificates)
        }
        if !isValidatingHostname { configuration.certificateVerification = .noHostnameVerification }
        return configuration
    }
}
