import Foundation

/// Templatized dynamic client registration, the fallback for devices that cannot attest.
public struct DCRConfiguration: Sendable {
    /// The template client the server registers the device's client from (`software_id`).
    public let templateClientId: String
    /// The registration endpoint (RFC 7591). Optional because apps build it with `URL(string:relativeTo:)`;
    /// a nil endpoint makes the accessor's build fail with `.invalidConfiguration` when it would register.
    public let clientRegistrationEndpointUrl: URL?
    /// Where the registered client is kept between runs, so a restart does not register again; `nil`
    /// keeps it for this process only. By default: the Keychain on Apple platforms, a sealed 0600 file
    /// under the user's application-support directory elsewhere (`defaultStorage()`).
    public let storage: (any Storage)?

    /// The fallback registers clients from `templateClientId` at `clientRegistrationEndpointUrl` and keeps the
    /// registered client in `storage`.
    public init(
        templateClientId: String, clientRegistrationEndpointUrl: URL?,
        storage: (any Storage)? = DCRConfiguration.defaultStorage()
    ) {
        self.templateClientId = templateClientId
        self.clientRegistrationEndpointUrl = clientRegistrationEndpointUrl
        self.storage = storage
    }

    /// The key the registered client is stored under: one per template and registration endpoint, so apps
    /// that talk to several servers can share one storage.
    public var storageKey: String {
        // BASE64URL(SHA-256(endpoint)), shortened: PKCE's challenge function is exactly that hash.
        "dcr-client." + templateClientId + "."
            + String(PKCE.challenge(for: clientRegistrationEndpointUrl?.absoluteString ?? "").prefix(16))
    }

    /// Where dynamic clients are kept unless the app says otherwise: `PlatformStorage` for `dcr-clients` (the
    /// Keychain on Apple platforms, `<application support>/swift-haapi/dcr-clients` elsewhere). `nil` (with a
    /// logged warning) when that cannot be opened: the client then lives for this process only.
    public static func defaultStorage() -> (any Storage)? {
        do { return try PlatformStorage.open(purpose: "dcr-clients") } catch {
            HaapiLogger.warning(
                SdkFollowUpTag.oauth, "dynamic clients cannot be kept between runs: \(String(describing: error))")
            return nil
        }
    }
}

/// A client the server registered for this device.
struct DynamicClient: Sendable, Equatable {
    let clientId: String
    let clientSecret: String

    var json: Data {
        Data(
            JSONValue.object(["client_id": .string(clientId), "client_secret": .string(clientSecret)]).serialized().utf8
        )
    }

    init(clientId: String, clientSecret: String) {
        self.clientId = clientId
        self.clientSecret = clientSecret
    }

    init?(json data: Data) {
        guard let object = try? JSONParser(limits: .init(maxBytes: 16 * 1024, maxDepth: 4)).parse(data).objectValue,
            let id = object["client_id"]?.stringValue, let secret = object["client_secret"]?.stringValue
        else { return nil }
        self.init(clientId: id, clientSecret: secret)
    }
}

/// Registers the device's client: a `dcr`-scoped client-credentials token with the main client's
/// credentials, then an RFC 7591 registration naming the template in `software_id`.
struct DynamicClientRegistrar: Sendable {
    let configuration: any HaapiConfigurable
    let dcr: DCRConfiguration
    let exchange: TokenEndpointExchange

    var storageKey: String { dcr.storageKey }
    /// Where earlier versions kept the client (one per template): read once and moved to `storageKey`.
    var legacyStorageKey: String { "dcr-client." + dcr.templateClientId }

    func stored() throws(HaapiError) -> DynamicClient? {
        guard let storage = dcr.storage else { return nil }
        do {
            if let data = try storage.read(key: storageKey) { return DynamicClient(json: data) }
            guard let legacy = try storage.read(key: legacyStorageKey), let client = DynamicClient(json: legacy) else {
                return nil
            }
            try storage.write(legacy, key: storageKey)
            try storage.delete(key: legacyStorageKey)
            return client
        } catch {
            HaapiLogger.error(DriverFollowUpTag.storage, "cannot read the stored dynamic client: \(error)")
            throw .illegalState(message: "the stored dynamic client cannot be read: \(error)")
        }
    }

    func clear() throws(HaapiError) {
        do {
            try dcr.storage?.delete(key: storageKey)
            try dcr.storage?.delete(key: legacyStorageKey)
        } catch {
            throw .illegalState(message: "the stored dynamic client cannot be removed: \(error)")
        }
    }

    func register() async throws(HaapiError) -> DynamicClient {
        let method = configuration.clientAuthenticationMethod
        let mainClient = configuration.clientId
        guard let endpoint = dcr.clientRegistrationEndpointUrl else {
            throw .invalidConfiguration(reason: "the DCRConfiguration has no registration endpoint URL")
        }
        HaapiLogger.info(SdkFollowUpTag.oauth, "registering a dynamic client from template \(dcr.templateClientId)")
        let tokenResponse = try await exchange.post(
            TokenEndpointRequest(
                url: configuration.tokenEndpointURL, form: [("grant_type", "client_credentials"), ("scope", "dcr")]),
            dpop: nil
        ) { request throws(HaapiError) in try method.authenticate(&request, clientId: mainClient) }
        guard tokenResponse.statusCode == 200 else { throw tokenResponse.oauthError }
        guard let token = try tokenResponse.oauthObject()["access_token"]?.stringValue else {
            throw .communication(message: "the dcr token response has no access_token", cause: nil)
        }
        var request = HTTPRequest(
            method: "POST", url: endpoint,
            body: Data(JSONValue.object(["software_id": .string(dcr.templateClientId)]).serialized().utf8))
        request.setHeader(HttpHeaderNames.contentType, MimeTypes.json)
        request.setHeader(HttpHeaderNames.accept, MimeTypes.json)
        request.setHeader(HttpHeaderNames.authorization, "Bearer " + token)
        let response = try await exchange.send(request)
        guard response.statusCode == 200 || response.statusCode == 201 else { throw response.oauthError }
        let body = try response.oauthObject()
        guard let clientId = body["client_id"]?.stringValue, let secret = body["client_secret"]?.stringValue else {
            throw .communication(message: "the registration response has no client_id or client_secret", cause: nil)
        }
        let client = DynamicClient(clientId: clientId, clientSecret: secret)
        do { try dcr.storage?.write(client.json, key: storageKey) } catch {
            HaapiLogger.error(DriverFollowUpTag.storage, "cannot store the dynamic client \(storageKey): \(error)")
            throw .illegalState(message: "the dynamic client cannot be stored: \(error)")
        }
        if dcr.storage != nil {
            HaapiLogger.info(DriverFollowUpTag.storage, "stored the dynamic client as \(storageKey)")
        }
        return client
    }
}
