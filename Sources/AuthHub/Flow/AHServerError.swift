@_spi(Tooling) import HaapiModel

/// An `errorCode`/`errorMessage` answer from the Authentication Hub.
public struct AHServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The seven-digit code, as sent.
    public let code: String
    /// The hub's `errorMessage`.
    public let message: String
    /// The HTTP status of the answer, when known.
    public let httpStatus: Int?

    /// An error from its parts.
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
        /// The flow state is unknown, expired or another tenant's.
        case invalidFlowState = "0000010"
        /// The call is not what the flow expects now (or its flow state was already used).
        case notAnIntendedAction = "0000011"
        /// An encrypted field could not be decrypted, or was sent in plain text where encryption is required.
        case encryptedFieldUnreadable = "0000012"
        /// Too many failed attempts in this flow.
        case attemptsExceeded = "0000050"
        /// The password is wrong.
        case invalidCredentials = "1004003"
        /// The account is locked.
        case accountLocked = "1004002"
        /// The password has expired.
        case passwordExpired = "1004004"
        /// The password must be changed before signing in.
        case passwordMustChange = "1004005"
        /// The one-time code is wrong or expired.
        case invalidOTP = "3001033"
        /// The request is malformed.
        case invalidRequest = "3001036"
        /// The hub does not know the user.
        case userNotFound = "8800004"
        /// The factor is not one the flow offered.
        case invalidFactorSelection = "8800246"
        /// The client's access token is invalid.
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
