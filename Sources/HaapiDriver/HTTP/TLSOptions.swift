import Crypto
import Foundation

/// A server key the client accepts for a host: the Base64 SHA-256 of the certificate's
/// SubjectPublicKeyInfo (the `pin-sha256` value of RFC 7469).
public struct KeyPinning: Sendable, Hashable {
    /// The host the pin applies to.
    public let hostname: String
    /// The `pin-sha256` value: base64 of the SHA-256 of the server key's SubjectPublicKeyInfo.
    public let publicKeyHash: String

    /// Pins `hostname` to the key whose SubjectPublicKeyInfo hashes to `publicKeyHash`.
    public init(hostname: String, publicKeyHash: String) {
        self.hostname = hostname
        self.publicKeyHash = publicKeyHash
    }

    /// The encodings `publicKeyHash(ofCertificate:format:)` reads.
    public enum CertificateFormat: Sendable {
        /// Base64 between `BEGIN CERTIFICATE` lines.
        case pem
        /// Raw DER bytes.
        case der
    }

    /// The pin of a certificate (the first one of a PEM file, or DER): what to put in `publicKeyHash`.
    /// The same code computes the pins of the certificates a server presents, on every platform.
    public static func publicKeyHash(ofCertificate bytes: [UInt8], format: CertificateFormat = .pem) throws -> String {
        let der = try format == .pem ? CertificateDER.firstCertificate(inPEM: bytes) : bytes
        return publicKeyHash(ofSubjectPublicKeyInfo: try CertificateDER.subjectPublicKeyInfo(ofCertificate: der))
    }

    /// The pin of a DER SubjectPublicKeyInfo: its SHA-256, base64.
    public static func publicKeyHash(ofSubjectPublicKeyInfo spki: [UInt8]) -> String {
        Data(SHA256.hash(data: spki)).base64EncodedString()
    }
}

/// How a transport secures its TLS connections beyond the system defaults. The same options work with
/// every transport that takes them: `URLSessionTransport` (through its session delegate) on Apple platforms,
/// `AsyncHTTPClientTransport` of swift-haapi-integrations on Linux.
public struct TLSOptions: Sendable {
    /// A client certificate and its key (mutual TLS), from a PKCS#12 archive.
    public var clientIdentity: ClientIdentity?
    /// When set, only these CA or self-signed certificates (PEM) are trusted, instead of the system store.
    public var trustedCertificatesPEM: [String]?
    /// Whether the certificate must name the host (on by default; off only for tests against an IP address).
    public var isValidatingHostname: Bool
    /// When set for a host, its connections are accepted only if the leaf key matches one of the pins;
    /// the pin replaces the CA check for that host.
    public var keyPinnings: [KeyPinning]

    /// TLS settings; with no arguments, the system's trust store and hostname checking.
    public init(
        clientIdentity: ClientIdentity? = nil, trustedCertificatesPEM: [String]? = nil,
        isValidatingHostname: Bool = true,
        keyPinnings: [KeyPinning] = []
    ) {
        self.clientIdentity = clientIdentity
        self.trustedCertificatesPEM = trustedCertificatesPEM
        self.isValidatingHostname = isValidatingHostname
        self.keyPinnings = keyPinnings
    }

    /// A PKCS#12 archive (certificate chain and private key) and its passphrase. On Apple platforms it is
    /// opened once here, so a wrong passphrase or a damaged file is an error at configuration time, not at the
    /// first request; on Linux the transport that uses it opens it when it is made
    /// (`AsyncHTTPClientTransport(tls:)` of swift-haapi-integrations).
    public struct ClientIdentity: Sendable {
        /// The archive's bytes.
        public let pkcs12: [UInt8]
        /// The archive's passphrase.
        public let passphrase: String

        /// A client identity from a PKCS#12 archive; throws when the archive does not open with `passphrase`.
        public init(pkcs12: [UInt8], passphrase: String) throws {
            self.pkcs12 = pkcs12
            self.passphrase = passphrase
            #if canImport(Security) && canImport(Darwin)
            try Self.validate(pkcs12: pkcs12, passphrase: passphrase)
            #endif
        }
    }

    /// The SPKI SHA-256 pins (base64) given for `host`, compared without case.
    public func pins(for host: String) -> Set<String> {
        Set(keyPinnings.filter { $0.hostname.caseInsensitiveCompare(host) == .orderedSame }.map(\.publicKeyHash))
    }
}

/// Just enough DER to find a certificate's SubjectPublicKeyInfo (RFC 5280 §4.1), in Swift, so pins are
/// computed the same way on every platform without a TLS library.
enum CertificateDER {
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    /// The DER of the first `CERTIFICATE` block of a PEM text.
    static func firstCertificate(inPEM bytes: [UInt8]) throws -> [UInt8] {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let begin = text.range(of: "-----BEGIN CERTIFICATE-----"),
            let end = text.range(of: "-----END CERTIFICATE-----", range: begin.upperBound..<text.endIndex)
        else { throw Malformed(description: "no PEM certificate block") }
        let body = text[begin.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
        guard let der = Data(base64Encoded: String(body)) else {
            throw Malformed(description: "the PEM block is not base64")
        }
        return Array(der)
    }

    /// The complete SubjectPublicKeyInfo element (tag, length and contents) of a DER certificate.
    static func subjectPublicKeyInfo(ofCertificate der: [UInt8]) throws -> [UInt8] {
        var certificate = Reader(der[...])
        var tbs = try Reader(certificate.element(expecting: 0x30).contents)
        var fields = try Reader(tbs.element(expecting: 0x30).contents)
        if fields.peekTag == 0xA0 { _ = try fields.element() }  // [0] version
        for _ in 0..<5 { _ = try fields.element() }  // serial, signature, issuer, validity, subject
        let spki = try fields.element(expecting: 0x30)
        return Array(spki.whole)
    }

    /// Reads DER elements one after another, checking every length against what is left.
    struct Reader {
        private var bytes: ArraySlice<UInt8>

        init(_ bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
        }

        var peekTag: UInt8? { bytes.first }

        mutating func element(
            expecting tag: UInt8? = nil
        ) throws -> (whole: ArraySlice<UInt8>, contents: ArraySlice<UInt8>) {
            let start = bytes.startIndex
            guard let found = bytes.first else { throw Malformed(description: "the certificate ends early") }
            if let tag, found != tag { throw Malformed(description: "unexpected DER tag \(found)") }
            var index = bytes.index(after: start)
            guard index < bytes.endIndex else { throw Malformed(description: "no length") }
            var length = Int(bytes[index])
            index += 1
            if length & 0x80 != 0 {
                let count = length & 0x7F
                guard (1...4).contains(count), bytes.endIndex - index >= count else {
                    throw Malformed(description: "bad long length")
                }
                length = 0
                for _ in 0..<count {
                    length = length << 8 | Int(bytes[index])
                    index += 1
                }
            }
            guard length >= 0, bytes.endIndex - index >= length else {
                throw Malformed(description: "a length runs past the end")
            }
            let end = index + length
            let element = (whole: bytes[start..<end], contents: bytes[index..<end])
            bytes = bytes[end...]
            return element
        }
    }
}
