/// An RFC 7807 problem (`application/problem+json`). Problems are results, not thrown errors:
/// many (invalid input, incorrect credentials) are fixed by the user on the same step.
public protocol ProblemRepresentation: RawJSONRepresentable {
    /// The members every problem has: type, title, messages, links and metadata.
    var content: ProblemContent { get }
}

extension ProblemRepresentation {
    /// What went wrong, from the problem's `type` URI.
    public var type: ProblemType { content.type }
    /// A short summary of the problem for the user.
    public var title: Message? { content.title }
    /// Messages to show with the problem.
    public var messages: [UserMessage] { content.messages }
    /// Links the problem offers (to start again, to recover an account).
    public var links: [Link] { content.links }
    /// The screen the server associates with the problem.
    public var metadata: Metadata? { content.metadata }
    /// An extra machine-readable code some servers add (`authorization_failed`, `access_denied`, …).
    public var code: String? { content.code }
    public var rawJSON: JSONValue { content.rawJSON }
}

/// The kinds of problem a HAAPI server reports; an unknown `type` URI keeps its text in `.other`.
public enum ProblemType: OpenEnum {
    /// Authentication failed.
    case authenticationFailedProblem
    /// Some values were refused; see `InvalidInputProblem.invalidFields`.
    case invalidInputProblem
    /// The credentials were wrong.
    case incorrectCredentialsProblem
    /// The flow ended with an OAuth error.
    case errorAuthorizationResponseProblem
    /// Something the server did not expect.
    case unexpectedProblem
    /// Too many attempts: wait, or start again.
    case tooManyAttemptsProblem
    /// A problem to show the user as it is.
    case genericUserProblem
    /// The session belongs to another HAAPI token: start again.
    case sessionAndAccessTokenMismatchProblem
    case other(value: String)

    public static let knownCases: [ProblemType] = [
        .authenticationFailedProblem, .invalidInputProblem, .incorrectCredentialsProblem,
        .errorAuthorizationResponseProblem, .unexpectedProblem, .tooManyAttemptsProblem, .genericUserProblem,
        .sessionAndAccessTokenMismatchProblem,
    ]

    public var rawValue: String {
        switch self {
        case .authenticationFailedProblem: "https://curity.se/problems/authentication-failed"
        case .invalidInputProblem: "https://curity.se/problems/invalid-input"
        case .incorrectCredentialsProblem: "https://curity.se/problems/incorrect-credentials"
        case .errorAuthorizationResponseProblem: "https://curity.se/problems/error-authorization-response"
        case .unexpectedProblem: "https://curity.se/problems/unexpected"
        case .tooManyAttemptsProblem: "https://curity.se/problems/too-many-attempts"
        case .genericUserProblem: "https://curity.se/problems/generic-user-error"
        case .sessionAndAccessTokenMismatchProblem:
            "https://curity.se/problems/mismatch-between-session-and-access-token"
        case .other(let value): value
        }
    }

    /// Whether the user can fix the problem on the current step and submit again.
    public var isRecoverableInStep: Bool {
        switch self {
        case .invalidInputProblem, .incorrectCredentialsProblem, .authenticationFailedProblem, .tooManyAttemptsProblem:
            true
        default:
            false
        }
    }
}

/// The members every problem has.
public struct ProblemContent: Sendable {
    /// What went wrong.
    public let type: ProblemType
    /// A short summary for the user.
    public let title: Message?
    /// Messages to show with the problem.
    public let messages: [UserMessage]
    /// Links the problem offers.
    public let links: [Link]
    /// The screen the server associates with the problem.
    public let metadata: Metadata?
    /// The server's error code, when it sends one.
    public let code: String?
    /// The problem as sent.
    public let rawJSON: JSONValue

    init(_ cursor: ObjectCursor) throws {
        type = ProblemType(rawValue: try cursor.string("type"))
        title = try cursor.message("title")
        messages = try cursor.objects("messages").map(UserMessage.init)
        links = try cursor.objects("links").map(Link.init)
        metadata = try cursor.optionalObject("metadata").map(Metadata.init)
        code = try cursor.optionalString("code")
        rawJSON = cursor.raw
    }
}

/// Any problem without a more specific model.
public struct Problem: ProblemRepresentation {
    public let content: ProblemContent
}

/// Some fields were missing or wrong; `invalidFields` names them.
public struct InvalidInputProblem: ProblemRepresentation {
    /// A field whose value was refused.
    public struct InvalidField: Sendable, Hashable {
        /// The name of the field whose value was refused.
        public let name: String
        /// `missing` or `invalidValue` on the servers seen so far.
        public let reason: String?
        /// Why the value was refused, for the user.
        public let detail: Message?

        /// A refused field: its name, the server's machine-readable reason and the text for the user.
        public init(name: String, reason: String?, detail: Message?) {
            self.name = name
            self.reason = reason
            self.detail = detail
        }
    }

    public let content: ProblemContent
    /// The fields whose values were refused.
    public let invalidFields: [InvalidField]
    /// The problem's summary as one sentence, for logs and alerts.
    public let errorDescription: String?

    init(_ content: ProblemContent, _ cursor: ObjectCursor) throws {
        self.content = content
        invalidFields = try cursor.objects("invalidFields").map { field in
            InvalidField(
                name: try field.string("name"),
                reason: try field.optionalString("reason"),
                detail: try field.message("detail"))
        }
        errorDescription = try cursor.optionalString("error_description")
    }

    /// The problems reported for one field, for showing them beside it.
    public func invalidFields(named name: String) -> [InvalidField] {
        invalidFields.filter { $0.name == name }
    }
}

/// The authorization request failed with an OAuth error (`error`, `error_description`).
public struct AuthorizationProblem: ProblemRepresentation {
    public let content: ProblemContent
    /// The OAuth error code (`access_denied`, `login_required`, …).
    public let error: String
    /// The server's explanation of the error, when it gives one.
    public let errorDescription: String?
    /// The issuer that answered (RFC 9207), for clients that check it.
    public let iss: String?

    init(_ content: ProblemContent, _ cursor: ObjectCursor) throws {
        self.content = content
        error = try cursor.string("error")
        errorDescription = try cursor.optionalString("error_description")
        iss = try cursor.optionalString("iss")
    }
}

enum ProblemDecoding {
    static func problem(_ cursor: ObjectCursor) throws -> any ProblemRepresentation {
        let content = try ProblemContent(cursor)
        switch content.type {
        case .invalidInputProblem:
            return try InvalidInputProblem(content, cursor)
        case .errorAuthorizationResponseProblem:
            return try AuthorizationProblem(content, cursor)
        default:
            return Problem(content: content)
        }
    }
}
