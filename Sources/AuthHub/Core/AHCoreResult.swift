import Foundation
@_spi(Tooling) import HaapiModel

/// What every `AHCore` call hands to its completion block: a result code, a message and the response data.
public struct AHCoreResult: Sendable {
    /// `AHResult.Code.SUCCESS`, or why the call failed (server, network, response, encryption).
    public var code: Int
    /// "OK", or the failure in words (the server's `errorMessage` when it sent one).
    public var message: String
    /// The response body with the SDK's own entries (such as the list of fields to encrypt).
    public var json: JSONObject

    /// A result with the response body as our JSON object.
    public init(code: Int, message: String, json: JSONObject) {
        self.code = code
        self.message = message
        self.json = json
    }

    /// A result from a dictionary; members without a JSON form are left out.
    public init(code: Int, message: String, data: [String: Any]) {
        self.init(code: code, message: message, json: JSONObject(jsonMembersOf: data))
    }

    /// `json` as a dictionary of Foundation values, the seed's shape. Setting it keeps the members that have a
    /// JSON form and leaves the others out.
    public var data: [String: Any] {
        get { json.foundationDictionary }
        set { json = JSONObject(jsonMembersOf: newValue) }
    }

    /// Whether `code` is `AHResult.Code.SUCCESS`.
    public var isSuccess: Bool { code == AHResult.Code.SUCCESS }

    /// The server's `errorCode`/`errorMessage`, top level or nested in `data` (the FIDO verifiers nest them).
    public var serverError: AHServerError? { AHServerError(body: json) }

    /// The flow's next step, when the call answered one.
    public var nextAction: AHNextAction? { json["nextaction"]?.stringValue.map(AHNextAction.init(rawValue:)) }

    /// The flow state the answer carries, to send as `X-Flow-State` with the next call.
    public var flowState: String? { json["flowState"]?.stringValue }
}

/// Result codes of `AHCoreResult.code`.
/// What the completion-block APIs call with their result: on the main actor, as UIKit code expects, and
/// allowed to throw (the seed's samples call other throwing APIs inside the block).
public typealias AHCompletionBlock = @MainActor (AHCoreResult) throws -> Void

// The seed spells these names this way; apps that follow its samples use them as they are.
// swift-format-ignore: AlwaysUseLowerCamelCase
/// The seed's namespace of result codes.
public enum AHResult {
    /// The values of `AHCoreResult.code`.
    public enum Code {
        /// The call succeeded; `data` holds the answer.
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
    /// Header names the hub reads.
    public enum HttpHeader {
        /// The header that carries the client's access token.
        public static let KeyAz = "Authorization"
        /// The flow state each call after `initAuth` sends, and each answer renews.
        public static let FlowState = "X-Flow-State"
        /// Asks the hub to start the flow again.
        public static let ResetFlow = "X-Reset-Flow"
        /// Names the device to the hub.
        public static let DeviceTag = "X-Device-Tag"
    }

    /// Keys of `AHCoreResult.data` and of the hub's answers.
    public enum GenericKeys {
        /// `data` key of `getFieldsToBeEncryptedInAuthFlow`: the field names, as `[String]`.
        public static let FieldsToBeEncrypted = "fieldsToBeEncryptedInAuthFlow"
        /// `data` key of `isEncryptionRequiredForField(fieldName: "password")`: a `Bool`.
        public static let PasswordField = "password"
        /// The field name of the device signature (`device.signature.iaAuthData`) in the list of fields to encrypt.
        public static let DeviceSignatureField = "devicesignature"
        /// The hub's error code member.
        public static let ErrorCode = "errorCode"
        /// The hub's error message member.
        public static let ErrorMessage = "errorMessage"
    }
}
