import Foundation
@_spi(Tooling) import HaapiSdk

/// What `haapi login --save-session DIR` keeps so `haapi token … --session DIR` can refresh, revoke and
/// introspect later: the endpoints, the client, the token response and the DPoP key the tokens are bound
/// to. It lives in a `FileStorage` (a 0700 folder, 0600 files sealed with AES-GCM).
struct SavedSession {
    static let sessionKey = "session"
    static let dpopKeyName = "session"

    var tokenEndpoint: URL
    var revocationEndpoint: URL?
    var introspectionEndpoint: URL?
    var clientId: String
    var clientSecret: String?
    var redirectURI: String
    var tokens: JSONObject
    var dpopKey: SoftwareP256SigningKey?
    /// The client id the DPoP key is filed under in the key store: the one the login was started with, which
    /// differs from `clientId` after the DCR fallback registered a client of the device's own.
    var keyClientId: String? = nil

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func storage(_ directory: String) throws -> FileStorage {
        do { return try FileStorage(directory: URL(fileURLWithPath: directory)) } catch {
            throw Failure(description: "cannot open the session folder \(directory): \(error)")
        }
    }

    func save(to directory: String) throws {
        let storage = try Self.storage(directory)
        var object: JSONObject = [
            "token_endpoint": .string(tokenEndpoint.absoluteString), "client_id": .string(clientId),
            "redirect_uri": .string(redirectURI), "tokens": .object(tokens),
        ]
        if let revocationEndpoint { object["revocation_endpoint"] = .string(revocationEndpoint.absoluteString) }
        if let introspectionEndpoint {
            object["introspection_endpoint"] = .string(introspectionEndpoint.absoluteString)
        }
        if let clientSecret { object["client_secret"] = .string(clientSecret) }
        if let keyClientId, keyClientId != clientId { object["dpop_key_client_id"] = .string(keyClientId) }
        do { try storage.write(Data(JSONValue.object(object).serialized().utf8), key: Self.sessionKey) } catch {
            throw Failure(description: "cannot save the session: \(error)")
        }
    }

    static func load(from directory: String) throws -> SavedSession {
        let storage = try storage(directory)
        let data: Data?
        do { data = try storage.read(key: sessionKey) } catch {
            throw Failure(description: "cannot read the session: \(error)")
        }
        guard let data, let object = try? JSONParser().parse(data).objectValue,
            let token = object["token_endpoint"]?.stringValue.flatMap(URL.init(string:)),
            let clientId = object["client_id"]?.stringValue,
            let tokens = object["tokens"]?.objectValue
        else { throw Failure(description: "\(directory) holds no saved session (log in with --save-session first)") }
        // Sessions saved before the key moved to the SDK's key store carry it in the session itself.
        let legacy = try object["dpop_key"].map { try SoftwareP256SigningKey(jwk: try JWK(json: $0)) }
        let keyClientId = object["dpop_key_client_id"]?.stringValue ?? clientId
        let key = try legacy ?? storedDeviceKey(storage, clientId: keyClientId)
        return SavedSession(
            tokenEndpoint: token,
            revocationEndpoint: object["revocation_endpoint"]?.stringValue.flatMap(URL.init(string:)),
            introspectionEndpoint: object["introspection_endpoint"]?.stringValue.flatMap(URL.init(string:)),
            clientId: clientId,
            clientSecret: object["client_secret"]?.stringValue,
            redirectURI: object["redirect_uri"]?.stringValue ?? "app://haapi",
            tokens: tokens, dpopKey: key, keyClientId: keyClientId)
    }

    /// The name the session's DPoP key has in the SDK's key store (`DeviceKeyStore`).
    static func deviceKeyName(clientId: String) -> String { "haapi-cli." + clientId }

    /// The session folder's DPoP key through the SDK's key store: the same key for every login into this
    /// folder, a new one when `fresh` (`--new-dpop-key`).
    static func deviceKey(in directory: String, clientId: String, fresh: Bool) throws -> SoftwareP256SigningKey {
        let store = DeviceKeyStore(storage: try storage(directory), keyType: .p256)
        if fresh { try store.delete(name: deviceKeyName(clientId: clientId)) }
        guard let key = try store.loadOrCreate(name: deviceKeyName(clientId: clientId)) as? SoftwareP256SigningKey
        else {
            throw Failure(description: "the session's DPoP key is not a software P-256 key")
        }
        return key
    }

    private static func storedDeviceKey(_ storage: FileStorage, clientId: String) throws -> SoftwareP256SigningKey? {
        try DeviceKeyStore(storage: storage, keyType: .p256).load(name: deviceKeyName(clientId: clientId))
            as? SoftwareP256SigningKey
    }

    /// Keeps a refreshed token response; members the refresh did not return (the ID token) stay.
    mutating func update(with response: JSONObject) {
        for (name, value) in response { tokens[name] = value }
    }
}
