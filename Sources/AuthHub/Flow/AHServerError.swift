import HaapiModel

/// An `errorCode`/`errorMessage` answer from the Authentication Hub.
public struct AHServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The seven-digit code, as sent.
    public let code: String
    public let message: String
    public let httpStatus: Int?

    public init(code: String, message: String, httpStatus: Int? = nil) {
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
    }

    /// Reads `errorCode` at the top level or nested in `data`; a numeric code keeps its digits as sent.
    init?(body: JSONObject, httpStatus: Int? = nil) {
        let source = body.contains("errorCode") ? body : (body["data"]?.objectValue ?? [:])
        let code: String
        switch source["errorCode"] {
        case .string(let text): code = text
        case .number(let number): code = number.literal
        case .none, .null: return nil
        case .some(let other): code = other.serialized()
        }
        self.init(code: code, message: source["errorMessage"]?.stringValue ?? "", httpStatus: httpStatus)
    }

    /// The meaning of the code, when it is one this SDK knows.
    public var kind: Kind? { Kind(rawValue: code) }

    public var description: String { message.isEmpty ? "error \(code)" : "\(message) (\(code))" }

    /// Codes with a known meaning (research A.12, plus `0000012` from docs/AUTHHUB-ENCRYPTION.md).
    public enum Kind: String, Sendable {
        case invalidFlowState = "0000010"
        case notAnIntendedAction = "0000011"
        case encryptedFieldUnreadable = "0000012"
        case attemptsExceeded = "0000050"
        case invalidCredentials = "1004003"
        case accountLocked = "1004002"
        case passwordExpired = "1004004"
        case passwordMustChange = "1004005"
        case invalidOTP = "3001033"
        case invalidRequest = "3001036"
        case userNotFound = "8800004"
        case invalidFactorSelection = "8800246"
        case invalidToken = "8910004"

        /// The flow cannot go on with its current state: start again with `initAuth`.
        public var needsNewFlow: Bool {
            switch self {
            case .invalidFlowState, .notAnIntendedAction, .attemptsExceeded, .accountLocked: true
            default: false
            }
        }
    }
}
