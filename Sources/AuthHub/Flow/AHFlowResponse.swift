import Foundation

/// One answer in a flow, read into types; `data` keeps the whole body for anything not modelled here.
public struct AHFlowResponse: @unchecked Sendable {
    // `data` holds JSONSerialization values only and is never mutated.
    public let statusCode: Int
    public let nextAction: AHNextAction?
    public let flowState: String?
    public let data: [String: Any]

    init(statusCode: Int, data: [String: Any]) {
        self.statusCode = statusCode
        self.data = data
        nextAction = (data["nextaction"] as? String).map(AHNextAction.init(rawValue:))
        flowState = data["flowState"] as? String
    }

    /// The factors offered at `FACTOR_SELECTION` (`currentFactors`; older servers say `availableFactors`).
    public var currentFactors: [String] { (data["currentFactors"] ?? data["availableFactors"]) as? [String] ?? [] }

    /// The user's credentials for the selected factor.
    public var credentials: [AHCredential] {
        (data["credentials"] as? [[String: Any]] ?? []).compactMap { entry in
            guard let id = entry["credId"] as? String else { return nil }
            return AHCredential(
                credId: id, credType: entry["credType"] as? String ?? "", credValue: entry["credValue"] as? String)
        }
    }

    /// The step's own object (`data`): WebAuthn options, a `credId`, a message.
    public var stepData: [String: Any] { data["data"] as? [String: Any] ?? [:] }

    public var idToken: String? { data["id_token"] as? String }
    public var sessionToken: String? { data["session_token"] as? String }
    public var authCompleteUrl: String? { data["authCompleteUrl"] as? String }
}

/// A credential the hub lists for a factor (an e-mail address, a phone, a passkey).
public struct AHCredential: Sendable, Equatable {
    public let credId: String
    public let credType: String
    /// A masked value for display ("d***@example.com"), when the hub sends one.
    public let credValue: String?
}

/// Why a flow call did not give a step.
public enum AHFlowError: Error, Sendable, CustomStringConvertible {
    /// The hub answered with `errorCode`/`errorMessage`. If it also sent a new flow state, the flow has
    /// taken it and the step can be retried (a wrong password or code).
    case server(AHServerError)
    case transport(String)
    /// A factor call was made before `start` gave a flow state.
    case noFlowState
    case invalidResponse(String)
    case passkey(String)
    case encryption(String)

    public var description: String {
        switch self {
        case .server(let error): "\(error)"
        case .transport(let detail): "the hub cannot be reached: \(detail)"
        case .noFlowState: "no flow state: start the flow first"
        case .invalidResponse(let detail): "unexpected answer: \(detail)"
        case .passkey(let detail): "passkey: \(detail)"
        case .encryption(let detail): "encryption: \(detail)"
        }
    }
}
