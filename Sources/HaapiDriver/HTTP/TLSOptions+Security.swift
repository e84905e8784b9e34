#if canImport(Security) && canImport(Darwin)
import Foundation
import Security

// The Apple side of `TLSOptions`: URLSession's authentication challenges answered with the Security
// framework. A thin adapter: the pin computation (`CertificateDER`, `KeyPinning`) and the option model
// are shared with Linux and tested there; this file is compiled only by the macOS/iOS workflow.

/// Why a client identity or a trusted certificate could not be used.
struct SecurityTLSError: Error, CustomStringConvertible {
    let description: String
}

extension TLSOptions.ClientIdentity {
    static func validate(pkcs12: [UInt8], passphrase: String) throws {
        _ = try secIdentity(pkcs12: pkcs12, passphrase: passphrase)
    }

    /// The identity and its certificate chain, as `SecPKCS12Import` opens them.
    static func secIdentity(
        pkcs12: [UInt8], passphrase: String
    ) throws -> (identity: SecIdentity, chain: [SecCertificate]) {
        var items: CFArray?
        let options = [kSecImportExportPassphrase as String: passphrase] as CFDictionary
        let status = SecPKCS12Import(Data(pkcs12) as CFData, options, &items)
        guard status == errSecSuccess, let first = (items as? [[String: Any]])?.first,
            let value = first[kSecImportItemIdentity as String],
            CFGetTypeID(value as CFTypeRef) == SecIdentityGetTypeID()
        else { throw SecurityTLSError(description: "the PKCS#12 archive cannot be opened (status \(status))") }
        let identity = unsafeBitCast(value as AnyObject, to: SecIdentity.self)
        let chain = (first[kSecImportItemCertChain as String] as? [SecCertificate]) ?? []
        return (identity, chain)
    }
}

/// Answers URLSession's challenges as `TLSOptions` say: key pinning (which replaces the CA check for a
/// pinned host, as on Linux), private trust roots, hostname checking, and the client identity (mTLS).
final class TLSChallengeHandler: @unchecked Sendable {
    // Immutable after init; the Security types are thread-safe for reading.
    private let options: TLSOptions
    private let identity: (identity: SecIdentity, chain: [SecCertificate])?
    private let anchors: [SecCertificate]

    init(options: TLSOptions) throws {
        self.options = options
        identity = try options.clientIdentity.map {
            try TLSOptions.ClientIdentity.secIdentity(pkcs12: $0.pkcs12, passphrase: $0.passphrase)
        }
        anchors = try (options.trustedCertificatesPEM ?? []).map { pem in
            let der = try CertificateDER.firstCertificate(inPEM: Array(pem.utf8))
            guard let certificate = SecCertificateCreateWithData(nil, Data(der) as CFData) else {
                throw SecurityTLSError(description: "a trusted certificate is not a valid X.509 certificate")
            }
            return certificate
        }
    }

    func answer(_ challenge: URLAuthenticationChallenge) -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        let space = challenge.protectionSpace
        switch space.authenticationMethod {
        case NSURLAuthenticationMethodServerTrust:
            guard let trust = space.serverTrust else { return (.cancelAuthenticationChallenge, nil) }
            return serverTrust(trust, host: space.host)
        case NSURLAuthenticationMethodClientCertificate:
            guard let identity else { return (.performDefaultHandling, nil) }
            return (
                .useCredential,
                URLCredential(identity: identity.identity, certificates: identity.chain, persistence: .forSession)
            )
        default:
            return (.performDefaultHandling, nil)
        }
    }

    private func serverTrust(_ trust: SecTrust, host: String) -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        let pins = options.pins(for: host)
        if !pins.isEmpty {
            guard let leaf = Self.leaf(of: trust),
                let spki = try? CertificateDER.subjectPublicKeyInfo(
                    ofCertificate: Array(SecCertificateCopyData(leaf) as Data)),
                pins.contains(KeyPinning.publicKeyHash(ofSubjectPublicKeyInfo: spki))
            else { return (.cancelAuthenticationChallenge, nil) }
            return (.useCredential, URLCredential(trust: trust))
        }
        guard !anchors.isEmpty || !options.isValidatingHostname else { return (.performDefaultHandling, nil) }
        if !anchors.isEmpty {
            SecTrustSetAnchorCertificates(trust, anchors as CFArray)
            SecTrustSetAnchorCertificatesOnly(trust, true)
        }
        if !options.isValidatingHostname { SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, nil)) }
        var error: CFError?
        guard SecTrustEvaluateWithError(trust, &error) else { return (.cancelAuthenticationChallenge, nil) }
        return (.useCredential, URLCredential(trust: trust))
    }

    /// The server's own certificate (the package's floor, iOS 15 and macOS 13, has `SecTrustCopyCertificateChain`).
    private static func leaf(of trust: SecTrust) -> SecCertificate? {
        (SecTrustCopyCertificateChain(trust) as? [SecCertificate])?.first
    }
}
#endif
