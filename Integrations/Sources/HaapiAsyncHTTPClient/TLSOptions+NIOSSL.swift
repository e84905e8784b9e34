import Foundation
import HaapiDriver
import NIOSSL

// The NIOSSL side of `TLSOptions`, for `AsyncHTTPClientTransport` (Linux). Apple platforms use
// `TLSOptions+Security.swift` through URLSession instead.

extension TLSOptions.ClientIdentity {
    static func validate(pkcs12: [UInt8], passphrase: String) throws {
        _ = try bundle(pkcs12: pkcs12, passphrase: passphrase)
    }

    static func bundle(pkcs12: [UInt8], passphrase: String) throws -> NIOSSLPKCS12Bundle {
        try NIOSSLPKCS12Bundle(buffer: pkcs12, passphrase: Array(passphrase.utf8))
    }
}

extension TLSOptions {
    /// The NIOSSL configuration for ordinary (not pinned) connections.
    func makeConfiguration() throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        if let identity = clientIdentity {
            let bundle = try ClientIdentity.bundle(pkcs12: identity.pkcs12, passphrase: identity.passphrase)
            configuration.certificateChain = bundle.certificateChain.map { .certificate($0) }
            configuration.privateKey = .privateKey(bundle.privateKey)
        }
        if let pems = trustedCertificatesPEM {
            let certificates = try pems.flatMap { try NIOSSLCertificate.fromPEMBytes(Array($0.utf8)) }
            configuration.trustRoots = .certificates(certificates)
        }
        if !isValidatingHostname { configuration.certificateVerification = .noHostnameVerification }
        return configuration
    }
}

extension KeyPinning {
    /// The pin of a certificate NIOSSL holds: the SHA-256 of its SubjectPublicKeyInfo, base64.
    public static func publicKeyHash(of certificate: NIOSSLCertificate) throws -> String {
        publicKeyHash(ofSubjectPublicKeyInfo: try certificate.extractPublicKey().toSPKIBytes())
    }
}
