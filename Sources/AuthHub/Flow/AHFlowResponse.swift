import Foundation
@_spi(Tooling) import HaapiModel

/// One answer in a flow, read into types; `json` keeps the whole body for anything not modelled here.
public struct AHFlowResponse: Sendable {
    /// The HTTP status.
    public let statusCode: Int
    /// What the hub expects next, when it says.
    public let nextAction: AHNextAction?
    /// The new flow state, when the answer carries one.
    public let flowState: String?
    /// The body as our parser read it.
    public let json: JSONObject

    init(statusCode: Int, json: JSONObject) {
        self.statusCode = statusCode
        self.json = json
        nextAction = json["nextaction"]?.stringValue.map(AHNextAction.init(rawValue:))
        flowState = json["flowState"]?.stringValue
    }

    /// The body as a dictionary of Foundation values.
    public var data: [String: Any] { json.foundationDictionary }

    /// The factors offered at `FACTOR_SELECTION` (`currentFactors`; older servers say `availableFactors`).
    public var currentFactors: [String] {
        (json["currentFactors"] ?? json["availableFactors"])?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// The user's credentials for the selected factor.
    public var credentials: [AHCredential] {
        (json["credentials"]?.arrayValue ?? []).compactMap { entry in
            guard let id = entry["credId"]?.stringValue else { return nil }
            return AHCredential(
                credId: id, credType: entry["credType"]?.stringValue ?? "", credValue: entry["credValue"]?.stringValue)
        }
    }

    /// The step's own object (`data`): WebAuthn options, a `credId`, a message.
    public var stepJSON: JSONObject { json["data"]?.objectValue ?? [:] }

    /// `stepJSON` as a dictionary of Foundation values.
    public var stepData: [String: Any] { stepJSON.foundationDictionary }

    /// The ID token, once the flow is allowed.
    public var idToken: String? { json["id_token"]?.stringValue }
    /// The session token, once the flow is allowed.
    public var sessionToken: String? { json["session_token"]?.stringValue }
    /// Where a web flow continues once authentication is complete, when the hub names it.
    public var authCompleteUrl: String? { json["authCompleteUrl"]?.stringValue }
}

/// A credential the hub lists for a factor (an e-mail address, a phone, a passkey).
public struct AHCredential: Sendable, Equatable {
    /// The credential's id, to send back when the user picks it.
    public let credId: String
    /// The credential's type (`EMAIL`, `SMS`, `FIDO`, …).
    public let credType: String
    /// A masked value for display ("d***@example.com"), when the hub sends one.
    public let credValue: String?
}

/// Why a flow call did not give a step.
public enum AHFlowError: Error, Sendable, CustomStringConvertible {
    /// The hub answered with `errorCode`/`errorMessage`. If it also sent a new flow state, the flow has
    /// taken it and the step can be retried (a wrong password or code).
    case server(AHServerError)
    /// The hub could not be reached or did not answer in time.
    case transport(String)
    /// What the app asked to send cannot be sent (a parameter without a JSON form, an unusable address).
    case invalidRequest(String)
    /// A factor call was made before `start` gave a flow state.
    case noFlowState
    /// The answer was not what the call expects.
    case invalidResponse(String)
    /// The passkey ceremony failed.
    case passkey(String)
    /// A field could not be encrypted.
    case encryption(String)

    public var description: String {
        switch self {
        case .server(let error): "\(error)"
        case .transport(let detail): "the hub cannot be reached: \(detail)"
        case .invalidRequest(let detail): "the request cannot be sent: \(detail)"
        case .noFlowState: "no flow state: start the flow first"
        case .invalidResponse(let detail): "unexpected answer: \(detail)"
        case .passkey(let detail): "passkey: \(detail)"
        case .encryption(let detail): "encryption: \(detail)"
        }
    }
}
