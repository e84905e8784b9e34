import Foundation

/// A request to a token endpoint (or the registration endpoint) before the client's credentials are added.
public struct TokenEndpointRequest: Sendable {
    /// The token endpoint.
    public var url: URL
    /// The form parameters, in order; client authentication adds its own.
    public var form: [(name: String, value: String)]
    /// Extra headers; client authentication may add `Authorization`.
    public var headers: [(name: String, value: String)]

    /// A token request from its parts.
    public init(url: URL, form: [(name: String, value: String)], headers: [(name: String, value: String)] = []) {
        self.url = url
        self.form = form
        self.headers = headers
    }
}

/// How a client proves who it is at the token endpoint when it does not use attestation
/// (RFC 6749 §2.3, RFC 7523, RFC 8705).
public protocol ClientAuthenticationMethod: Sendable {
    /// Adds the credentials for `clientId` to `request`.
    func authenticate(_ request: inout TokenEndpointRequest, clientId: String) throws(HaapiError)
    /// The TLS settings the transport must use (a client certificate for mTLS); `nil` for the others.
    var tlsOptions: TLSOptions? { get }
}

extension ClientAuthenticationMethod {
    public var tlsOptions: TLSOptions? { nil }
    /// Whether the method carries any credential (DCR and attestation-less HAAPI need one).
    public var hasCredentials: Bool { !(self is ClientAuthenticationMethodNone) }
}

/// A public client: only `client_id` is sent.
public struct ClientAuthenticationMethodNone: ClientAuthenticationMethod {
    /// A public client: no credentials are sent.
    public init() {}

    public func authenticate(_ request: inout TokenEndpointRequest, clientId: String) throws(HaapiError) {
        request.form.append(("client_id", clientId))
    }
}

/// A shared secret, in `Authorization: Basic` (the default) or in the form body.
public struct ClientAuthenticationMethodSecret: ClientAuthenticationMethod, CustomStringConvertible {
    /// Where the secret goes: the `Authorization: Basic` header (`client_secret_basic`) or the body
    /// (`client_secret_post`).
    public enum Placement: Sendable {
        /// In the `Authorization: Basic` header (`client_secret_basic`).
        case basic
        /// In the form body (`client_secret_post`).
        case post
    }
    let secret: String
    /// Where the secret is sent.
    public let placement: Placement

    /// A client secret, sent in the `Authorization: Basic` header (the default) or in the form body.
    public init(_ secret: String, placement: Placement = .basic) {
        self.secret = secret
        self.placement = placement
    }

    public func authenticate(_ request: inout TokenEndpointRequest, clientId: String) throws(HaapiError) {
        switch placement {
        case .basic:
            // RFC 6749 §2.3.1: both halves are form-urlencoded before they are joined.
            let credentials = FormURLEncoding.encodeComponent(clientId) + ":" + FormURLEncoding.encodeComponent(secret)
            request.headers.append(("Authorization", "Basic " + Data(credentials.utf8).base64EncodedString()))
        case .post:
            request.form.append(("client_id", clientId))
            request.form.append(("client_secret", secret))
        }
    }

    public var description: String { "ClientAuthenticationMethodSecret(*****, \(placement))" }
}

/// Mutual TLS (RFC 8705): the client certificate is the credential; the form names the client.
public struct ClientAuthenticationMethodMTLS: ClientAuthenticationMethod {
    /// The client identity and the server trust (CA or pins) the transport must use.
    public let tls: TLSOptions
    public var tlsOptions: TLSOptions? { tls }

    /// With a bundled server certificate (PEM) as the only trust anchor.
    public init(
        pkcs12: Data, pkcs12Passphrase: String, serverPEM: String?, isValidatingHostname: Bool = true
    ) throws(HaapiError) {
        tls = TLSOptions(
            clientIdentity: try Self.identity(pkcs12, pkcs12Passphrase), trustedCertificatesPEM: serverPEM.map { [$0] },
            isValidatingHostname: isValidatingHostname)
    }

    /// With pinned server keys instead of a CA.
    public init(pkcs12: Data, pkcs12Passphrase: String, serverKeyPinnings: [KeyPinning]) throws(HaapiError) {
        guard !serverKeyPinnings.isEmpty else { throw .invalidConfiguration(reason: "serverKeyPinnings is empty") }
        tls = TLSOptions(clientIdentity: try Self.identity(pkcs12, pkcs12Passphrase), keyPinnings: serverKeyPinnings)
    }

    /// The seed's file-based form: the archive and the server certificate are read from `bundle`.
    public init(
        pkcs12Filename: String, pkcs12Passphrase: String, serverPEMFilename: String?, isValidatingHostname: Bool = true,
        bundle: Bundle = .main
    ) throws(HaapiError) {
        let pkcs12 = try Self.read(pkcs12Filename, bundle)
        let pem = try serverPEMFilename.map { name throws(HaapiError) in
            String(decoding: try Self.read(name, bundle), as: UTF8.self)
        }
        try self.init(
            pkcs12: pkcs12, pkcs12Passphrase: pkcs12Passphrase, serverPEM: pem,
            isValidatingHostname: isValidatingHostname)
    }

    /// Mutual TLS with the client certificate and key of a PKCS#12 file in `bundle`, trusting the server only through
    /// the given key pins. Throws `.invalidConfiguration` when the file cannot be read or opened.
    public init(
        pkcs12Filename: String, pkcs12Passphrase: String, serverKeyPinnings: [KeyPinning], bundle: Bundle = .main
    ) throws(HaapiError) {
        try self.init(
            pkcs12: try Self.read(pkcs12Filename, bundle), pkcs12Passphrase: pkcs12Passphrase,
            serverKeyPinnings: serverKeyPinnings)
    }

    public func authenticate(_ request: inout TokenEndpointRequest, clientId: String) throws(HaapiError) {
        request.form.append(("client_id", clientId))
    }

    private static func identity(_ pkcs12: Data, _ passphrase: String) throws(HaapiError) -> TLSOptions.ClientIdentity {
        do { return try TLSOptions.ClientIdentity(pkcs12: Array(pkcs12), passphrase: passphrase) } catch {
            throw .invalidConfiguration(
                reason: "the PKCS#12 archive cannot be opened (wrong passphrase or damaged file): \(error)")
        }
    }

    static func read(_ name: String, _ bundle: Bundle) throws(HaapiError) -> Data {
        let url = name.hasPrefix("/") ? URL(fileURLWithPath: name) : bundle.url(forResource: name, withExtension: nil)
        guard let url, let data = try? Data(contentsOf: url) else {
            throw .invalidConfiguration(reason: "cannot read \(name)")
        }
        return data
    }
}
