import Foundation

/// What every `AHCore` call hands to its completion block: a result code, a message and the response data.
public struct AHCoreResult: @unchecked Sendable {
    // `data` holds JSONSerialization values (and the SDK's own Bool/[String] entries) only, and is never mutated
    // after the result is handed out.
    public var code: Int
    public var message: String
    public var data: [String: Any]

    public init(code: Int, message: String, data: [String: Any]) {
        self.code = code
        self.message = message
        self.data = data
    }

    public var isSuccess: Bool { code == AHResult.Code.SUCCESS }

    /// The server's `errorCode`/`errorMessage`, top level or nested in `data` (the FIDO verifiers nest them).
    public var serverError: AHServerError? { AHServerError(body: data) }

    /// The flow's next step, when the call answered one.
    public var nextAction: AHNextAction? { (data["nextaction"] as? String).map(AHNextAction.init(rawValue:)) }

    public var flowState: String? { data["flowState"] as? String }
}

/// Result codes of `AHCoreResult.code`.
/// What the completion-block APIs call with their result: on the main actor, as UIKit code expects, and
/// allowed to throw (the seed's samples call other throwing APIs inside the block).
public typealias AHCompletionBlock = @MainActor (AHCoreResult) throws -> Void

// The seed spells these names this way; apps that follow its samples use them as they are.
// swift-format-ignore: AlwaysUseLowerCamelCase
public enum AHResult {
    public enum Code {
        public static let SUCCESS = 0
        /// The server answered with an `errorCode` or a non-2xx status; `data` holds its body.
        public static let SERVER_ERROR = 1
        /// The server could not be reached, or did not answer in time.
        public static let NETWORK_ERROR = 2
        /// The answer was not the JSON the call expects.
        public static let INVALID_RESPONSE = 3
        /// A field could not be encrypted (no tenant key, a failed nonce exchange, an oversized value).
        public static let ENCRYPTION_ERROR = 4
    }
}

/// Names used in headers and in `AHCoreResult.data`.
// The seed spells these names this way; apps that follow its samples use them as they are.
// swift-format-ignore: AlwaysUseLowerCamelCase
public enum AHConstants {
    public enum HttpHeader {
        /// The header that carries the client's access token.
        public static let KeyAz = "Authorization"
        public static let FlowState = "X-Flow-State"
        public static let ResetFlow = "X-Reset-Flow"
        public static let DeviceTag = "X-Device-Tag"
    }

    public enum GenericKeys {
        /// `data` key of `getFieldsToBeEncryptedInAuthFlow`: the field names, as `[String]`.
        public static let FieldsToBeEncrypted = "fieldsToBeEncryptedInAuthFlow"
        /// `data` key of `isEncryptionRequiredForField(fieldName: "password")`: a `Bool`.
        public static let PasswordField = "password"
        public static let DeviceSignatureField = "devicesignature"
        public static let ErrorCode = "errorCode"
        public static let ErrorMessage = "errorMessage"
    }
}
