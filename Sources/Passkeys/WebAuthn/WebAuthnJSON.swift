import Foundation
@_spi(Tooling) import HaapiDriver

/// `PublicKeyCredentialCreationOptionsJSON` (WebAuthn L3 §5.1.12): what a relying party sends to register.
public struct PublicKeyCredentialCreationOptions: Sendable {
    /// The relying party's ID.
    public var rpId: String
    /// The relying party's name, for the authenticator's UI.
    public var rpName: String
    /// The user handle the credential is created under.
    public var userID: Data
    /// The account name.
    public var userName: String
    /// The name shown for the user.
    public var userDisplayName: String
    /// The challenge the attestation must sign.
    public var challenge: Data
    /// COSE algorithms the RP accepts, in its order of preference.
    public var algorithms: [Int]
    /// Credentials the user already has; the authenticator must not create another for the same account.
    public var excludeCredentials: [Data]
    /// `required`, `preferred` or `discouraged`: whether the credential must be discoverable.
    public var residentKey: String?
    /// `required`, `preferred` or `discouraged`.
    public var userVerification: String?
    /// The attestation conveyance the RP asks for.
    public var attestation: String?
    /// How long the ceremony may take, in milliseconds.
    public var timeout: Int?

    /// Creation options from their values.
    public init(
        rpId: String, rpName: String, userID: Data, userName: String, userDisplayName: String, challenge: Data,
        algorithms: [Int] = [COSEKey.Algorithm.es256, COSEKey.Algorithm.rs256], excludeCredentials: [Data] = [],
        residentKey: String? = "preferred", userVerification: String? = "preferred", attestation: String? = "none",
        timeout: Int? = 60000
    ) {
        self.rpId = rpId
        self.rpName = rpName
        self.userID = userID
        self.userName = userName
        self.userDisplayName = userDisplayName
        self.challenge = challenge
        self.algorithms = algorithms
        self.excludeCredentials = excludeCredentials
        self.residentKey = residentKey
        self.userVerification = userVerification
        self.attestation = attestation
        self.timeout = timeout
    }

    /// Reads options from their JSON form (`PublicKeyCredentialCreationOptionsJSON`, base64url buffers).
    public init(json: JSONValue) throws(WebAuthnError) {
        let options = json["publicKey"] ?? json
        guard let challenge = options["challenge"]?.stringValue.flatMap(Base64URL.decodeLenient),
            let rp = options["rp"], let user = options["user"],
            let userID = user["id"]?.stringValue.flatMap(Base64URL.decodeLenient),
            let userName = user["name"]?.stringValue
        else { throw .malformed("creation options need challenge, rp, user.id and user.name") }
        self.challenge = challenge
        rpId = rp["id"]?.stringValue ?? ""
        rpName = rp["name"]?.stringValue ?? rpId
        self.userID = userID
        self.userName = userName
        userDisplayName = user["displayName"]?.stringValue ?? userName
        algorithms = (options["pubKeyCredParams"]?.arrayValue ?? []).compactMap { $0["alg"]?.numberValue?.intValue }
        excludeCredentials = try Base64URL.credentialIDs(options["excludeCredentials"], in: "excludeCredentials")
        let selection = options["authenticatorSelection"]
        residentKey =
            selection?["residentKey"]?.stringValue
            ?? (selection?["requireResidentKey"]?.boolValue == true ? "required" : nil)
        userVerification = selection?["userVerification"]?.stringValue
        attestation = options["attestation"]?.stringValue
        timeout = options["timeout"]?.numberValue?.intValue
    }

    /// The options in their JSON form.
    public var json: JSONValue {
        var object: JSONObject = [
            "rp": ["id": .string(rpId), "name": .string(rpName)],
            "user": [
                "id": .string(Base64URL.encode(userID)), "name": .string(userName),
                "displayName": .string(userDisplayName),
            ],
            "challenge": .string(Base64URL.encode(challenge)),
            "pubKeyCredParams": .array(algorithms.map { ["type": "public-key", "alg": .number(JSONNumber($0))] }),
            "excludeCredentials": .array(
                excludeCredentials.map { ["type": "public-key", "id": .string(Base64URL.encode($0))] }),
        ]
        var selection: JSONObject = [:]
        if let residentKey { selection["residentKey"] = .string(residentKey) }
        if let userVerification { selection["userVerification"] = .string(userVerification) }
        object["authenticatorSelection"] = .object(selection)
        if let attestation { object["attestation"] = .string(attestation) }
        if let timeout { object["timeout"] = .number(JSONNumber(timeout)) }
        return .object(object)
    }
}

/// `PublicKeyCredentialRequestOptionsJSON`: what a relying party sends to sign in.
public struct PublicKeyCredentialRequestOptions: Sendable {
    /// The challenge the assertion must sign.
    public var challenge: Data
    /// The relying party's ID; the caller's origin decides when absent.
    public var rpId: String?
    /// The credentials that may answer; empty lets the user pick a discoverable one.
    public var allowCredentials: [Data]
    /// `required`, `preferred` or `discouraged`.
    public var userVerification: String?
    /// How long the ceremony may take, in milliseconds.
    public var timeout: Int?

    /// Request options from their values.
    public init(
        challenge: Data, rpId: String?, allowCredentials: [Data] = [], userVerification: String? = "preferred",
        timeout: Int? = 60000
    ) {
        self.challenge = challenge
        self.rpId = rpId
        self.allowCredentials = allowCredentials
        self.userVerification = userVerification
        self.timeout = timeout
    }

    /// Reads options from their JSON form (`PublicKeyCredentialRequestOptionsJSON`, base64url buffers).
    public init(json: JSONValue) throws(WebAuthnError) {
        let options = json["publicKey"] ?? json
        guard let challenge = options["challenge"]?.stringValue.flatMap(Base64URL.decodeLenient) else {
            throw .malformed("request options need a challenge")
        }
        self.challenge = challenge
        rpId = options["rpId"]?.stringValue
        allowCredentials = try Base64URL.credentialIDs(options["allowCredentials"], in: "allowCredentials")
        userVerification = options["userVerification"]?.stringValue
        timeout = options["timeout"]?.numberValue?.intValue
    }

    /// The options in their JSON form.
    public var json: JSONValue {
        var object: JSONObject = [
            "challenge": .string(Base64URL.encode(challenge)),
            "allowCredentials": .array(
                allowCredentials.map { ["type": "public-key", "id": .string(Base64URL.encode($0))] }),
        ]
        if let rpId { object["rpId"] = .string(rpId) }
        if let userVerification { object["userVerification"] = .string(userVerification) }
        if let timeout { object["timeout"] = .number(JSONNumber(timeout)) }
        return .object(object)
    }
}

/// `CollectedClientData` (§5.8.1), serialised as browsers do: type, challenge, origin, crossOrigin.
public struct CollectedClientData: Sendable, Equatable {
    /// `webauthn.create` or `webauthn.get`.
    public let type: String
    /// The challenge the client was given.
    public let challenge: Data
    /// The origin the ceremony ran for.
    public let origin: String
    /// Whether it ran in a cross-origin frame.
    public let crossOrigin: Bool

    /// Client data from its values.
    public init(type: String, challenge: Data, origin: String, crossOrigin: Bool = false) {
        self.type = type
        self.challenge = challenge
        self.origin = origin
        self.crossOrigin = crossOrigin
    }

    /// The `clientDataJSON` bytes the authenticator signs over (through their hash).
    public var json: Data {
        Data(
            JSONValue.object([
                "type": .string(type), "challenge": .string(Base64URL.encode(challenge)), "origin": .string(origin),
                "crossOrigin": .bool(crossOrigin),
            ]).serialized().utf8)
    }

    /// Reads `clientDataJSON`; throws `.malformed` when a required member is missing.
    public init(parsing data: Data) throws(WebAuthnError) {
        guard let value = try? JSONParser(limits: .init(maxBytes: 64 * 1024, maxDepth: 8)).parse(data),
            let type = value["type"]?.stringValue,
            let challenge = value["challenge"]?.stringValue.flatMap(Base64URL.decodeLenient),
            let origin = value["origin"]?.stringValue
        else { throw .malformed("clientDataJSON needs type, challenge and origin") }
        self.type = type
        self.challenge = challenge
        self.origin = origin
        crossOrigin = value["crossOrigin"]?.boolValue ?? false
    }
}

/// `RegistrationResponseJSON` (§5.1.13).
public struct RegistrationResponse: Sendable {
    /// The new credential's id.
    public let credentialID: Data
    /// The client data, as signed.
    public let clientDataJSON: Data
    /// The attestation object, as CBOR.
    public let attestationObject: Data
    /// How the authenticator can be reached (`internal`, `hybrid`, `usb`, …).
    public let transports: [String]
    /// `platform` or `cross-platform`, when known.
    public let authenticatorAttachment: String?

    /// A registration response from its parts.
    public init(
        credentialID: Data, clientDataJSON: Data, attestationObject: Data, transports: [String] = ["internal"],
        authenticatorAttachment: String? = "platform"
    ) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.transports = transports
        self.authenticatorAttachment = authenticatorAttachment
    }

    /// The response in its JSON form (`RegistrationResponseJSON`).
    public var json: JSONValue {
        var response: JSONObject = [
            "clientDataJSON": .string(Base64URL.encode(clientDataJSON)),
            "attestationObject": .string(Base64URL.encode(attestationObject)),
            "transports": .array(transports.map(JSONValue.string)),
        ]
        if let parsed = try? AttestationObject(parsing: attestationObject),
            let key = parsed.authenticatorData.attestedCredential?.publicKey
        {
            response["authenticatorData"] = .string(Base64URL.encode(parsed.authenticatorData.raw))
            response["publicKeyAlgorithm"] = .number(JSONNumber(key.algorithm))
        }
        return publicKeyCredentialJSON(id: credentialID, response: response, attachment: authenticatorAttachment)
    }

    /// Reads a response from its JSON form.
    public init(json: JSONValue) throws(WebAuthnError) {
        guard let id = json["rawId"]?.stringValue ?? json["id"]?.stringValue,
            let credentialID = Base64URL.decodeLenient(id),
            let response = json["response"],
            let clientData = response["clientDataJSON"]?.stringValue.flatMap(Base64URL.decodeLenient),
            let attestation = response["attestationObject"]?.stringValue.flatMap(Base64URL.decodeLenient)
        else { throw .malformed("a registration response needs rawId, clientDataJSON and attestationObject") }
        self.init(
            credentialID: credentialID, clientDataJSON: clientData, attestationObject: attestation,
            transports: (response["transports"]?.arrayValue ?? []).compactMap(\.stringValue),
            authenticatorAttachment: json["authenticatorAttachment"]?.stringValue)
    }
}

/// `AuthenticationResponseJSON` (§5.1.14).
public struct AuthenticationResponse: Sendable {
    /// The id of the credential that signed.
    public let credentialID: Data
    /// The client data, as signed.
    public let clientDataJSON: Data
    /// The authenticator data, as signed.
    public let authenticatorData: Data
    /// The signature over the authenticator data and the client data's hash.
    public let signature: Data
    /// The user handle of a discoverable credential.
    public let userHandle: Data?
    /// `platform` or `cross-platform`, when known.
    public let authenticatorAttachment: String?

    /// An authentication response from its parts.
    public init(
        credentialID: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userHandle: Data?,
        authenticatorAttachment: String? = "platform"
    ) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
        self.authenticatorAttachment = authenticatorAttachment
    }

    /// The response in its JSON form (`AuthenticationResponseJSON`).
    public var json: JSONValue {
        var response: JSONObject = [
            "clientDataJSON": .string(Base64URL.encode(clientDataJSON)),
            "authenticatorData": .string(Base64URL.encode(authenticatorData)),
            "signature": .string(Base64URL.encode(signature)),
        ]
        if let userHandle { response["userHandle"] = .string(Base64URL.encode(userHandle)) }
        return publicKeyCredentialJSON(id: credentialID, response: response, attachment: authenticatorAttachment)
    }

    /// Reads a response from its JSON form.
    public init(json: JSONValue) throws(WebAuthnError) {
        guard let id = json["rawId"]?.stringValue ?? json["id"]?.stringValue,
            let credentialID = Base64URL.decodeLenient(id),
            let response = json["response"],
            let clientData = response["clientDataJSON"]?.stringValue.flatMap(Base64URL.decodeLenient),
            let authData = response["authenticatorData"]?.stringValue.flatMap(Base64URL.decodeLenient),
            let signature = response["signature"]?.stringValue.flatMap(Base64URL.decodeLenient)
        else {
            throw .malformed("an authentication response needs rawId, clientDataJSON, authenticatorData and signature")
        }
        var userHandle: Data?
        if let text = response["userHandle"]?.stringValue {
            guard let handle = Base64URL.decodeLenient(text) else { throw .malformed("userHandle is not base64url") }
            userHandle = handle
        }
        self.init(
            credentialID: credentialID, clientDataJSON: clientData, authenticatorData: authData, signature: signature,
            userHandle: userHandle,
            authenticatorAttachment: json["authenticatorAttachment"]?.stringValue)
    }
}

/// The `PublicKeyCredential` JSON wrapper both response kinds share.
func publicKeyCredentialJSON(id: Data, response: JSONObject, attachment: String?) -> JSONValue {
    var object: JSONObject = [
        "id": .string(Base64URL.encode(id)), "rawId": .string(Base64URL.encode(id)), "type": "public-key",
        "response": .object(response), "clientExtensionResults": .object([:]),
    ]
    if let attachment { object["authenticatorAttachment"] = .string(attachment) }
    return .object(object)
}

extension Base64URL {
    /// Decodes WebAuthn's base64url the way browsers' JSON parsers do: with or without correct trailing `=`
    /// padding, with non-zero unused bits in the last symbol, and plain base64's `+`/`/` too (some servers
    /// send them). Anything else (other characters, padding inside or in excess, an impossible length) is `nil`.
    static func decodeLenient(_ text: String) -> Data? {
        // Also the standard alphabet, which some relying parties send in WebAuthn JSON.
        let normalized = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return Base64URL.decodeForgiving(normalized).map { Data($0) }
    }

    /// The credential ids of an options list; one that is not base64url makes the whole list malformed
    /// (dropping it would widen an allow list or narrow an exclude list without anyone knowing).
    static func credentialIDs(_ list: JSONValue?, in field: String) throws(WebAuthnError) -> [Data] {
        var ids: [Data] = []
        for (index, entry) in (list?.arrayValue ?? []).enumerated() {
            guard let id = entry["id"]?.stringValue.flatMap(decodeLenient) else {
                throw .malformed("\(field)[\(index)].id is not base64url")
            }
            ids.append(id)
        }
        return ids
    }
}
