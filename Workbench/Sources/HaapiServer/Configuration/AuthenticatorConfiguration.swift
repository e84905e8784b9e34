import Foundation
@_spi(Tooling) import HaapiModel

/// One way of signing in that the dev server offers. The built-in kinds need only an id and a title; `form`,
/// `polling` and `recorded` describe a team's own steps (docs/FLOWS.md has the reference).
public struct AuthenticatorConfiguration: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case usernamePassword = "username-password"
        case emailOTP = "email-otp"
        case approval = "approve-on-another-device"
        case externalBrowser = "external-browser"
        case passkeys
        /// Steps of forms with the team's own fields, checked by their `accept` patterns.
        case form
        /// A polling step (after a BankID or Encap launch, when configured) that turns done after a number of
        /// polls or when `haapi approve` approves it.
        case polling
        /// Representations a real server sent, served again with this server's URLs.
        case recorded
    }

    public var id: String
    public var type: Kind
    public var title: String
    /// Who a `form`, `polling` or `recorded` authenticator signs in. A form with a field named `username`
    /// signs in the user typed there instead. Without either, the authenticator proves the user an earlier
    /// step of the login identified (a second factor).
    public var user: String?
    /// The steps of a `form` authenticator, in order.
    public var formSteps: [FormStepConfiguration]
    /// What a `polling` authenticator launches and when it is done.
    public var polling: PollingConfiguration?
    /// The representations of a `recorded` authenticator, each a JSON object exactly as a server sent it.
    public var recordedSteps: [JSONValue]

    public init(
        id: String, type: Kind, title: String, user: String? = nil, formSteps: [FormStepConfiguration] = [],
        polling: PollingConfiguration? = nil, recordedSteps: [JSONValue] = []
    ) {
        self.id = id
        self.type = type
        self.title = title
        self.user = user
        self.formSteps = formSteps
        self.polling = polling
        self.recordedSteps = recordedSteps
    }

    /// What the authenticator selector tells the app this option is (`properties.authenticatorType`): the
    /// app operation a polling authenticator launches (`bankid`), `html-form` for forms.
    var advertisedType: String {
        switch type {
        case .form, .recorded: "html-form"
        case .polling: polling?.clientOperation?.rawValue ?? "polling"
        default: type.rawValue
        }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, type, title, user, steps, clientOperation, pollsUntilDone
    }

    /// Each member is checked where it is read, so an error names its place in the file
    /// (`authenticators[2].steps[0].fields[1].accept`).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        // The id is a segment of the authenticator's URLs.
        guard !id.isEmpty, id.utf8.count <= 64,
            id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) })
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .id, in: c, debugDescription: "1 to 64 letters, digits, '-', '_' or '.', not \"\(id)\"")
        }
        let kind = try c.decodeChoice(Kind.self, forKey: .type, named: "authenticator type")
        type = kind
        title = try c.decode(String.self, forKey: .title)
        user = try c.decodeIfPresent(String.self, forKey: .user)
        formSteps = []
        polling = nil
        recordedSteps = []
        switch kind {
        case .form:
            formSteps = try c.decode([FormStepConfiguration].self, forKey: .steps)
            guard !formSteps.isEmpty else {
                throw DecodingError.dataCorruptedError(
                    forKey: .steps, in: c, debugDescription: "a form authenticator needs at least one step")
            }
        case .polling:
            polling = try PollingConfiguration(from: c)
        case .recorded:
            recordedSteps = try c.decode([RecordedStep].self, forKey: .steps).map(\.value)
            guard !recordedSteps.isEmpty else {
                throw DecodingError.dataCorruptedError(
                    forKey: .steps, in: c, debugDescription: "a recorded authenticator needs at least one step")
            }
        case .usernamePassword, .emailOTP, .approval, .externalBrowser, .passkeys:
            for key in [CodingKeys.steps, .user, .clientOperation, .pollsUntilDone] where c.contains(key) {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: c,
                    debugDescription: "\"\(key.stringValue)\" is for form, polling and recorded authenticators only")
            }
        }
    }

    /// What the file's decoding checks, checked again for a configuration built in code (`init(id:type:…)`):
    /// the steps a form or recording needs.
    func validate(at place: String) throws {
        switch type {
        case .form where formSteps.isEmpty:
            throw ConfigurationError.invalid("\(place).steps: a form authenticator needs at least one step")
        case .recorded where recordedSteps.isEmpty:
            throw ConfigurationError.invalid("\(place).steps: a recorded authenticator needs at least one step")
        case .recorded where recordedSteps.contains { $0.objectValue == nil }:
            throw ConfigurationError.invalid("\(place).steps: a recorded step must be a JSON object")
        default:
            break
        }
        if type == .recorded {
            do throws(RecordingError) {
                _ = try RecordedLogin(configured: recordedSteps)
            } catch {
                throw ConfigurationError.invalid("\(place).steps\(error.place): \(error.message)")
            }
        }
        for (number, step) in formSteps.enumerated() {
            for (index, field) in step.fields.enumerated() {
                guard let accept = field.accept else { continue }
                do throws(AcceptPattern.Refusal) {
                    _ = try AcceptPattern(accept)
                } catch {
                    throw ConfigurationError.invalid(
                        "\(place).steps[\(number)].fields[\(index)].accept: \(error.message(for: accept))")
                }
            }
        }
    }

    /// Whether the authenticator finds out who the user is by itself, and so can begin a login: the built-in
    /// ones do, a configured one when it names its `user` (or, a form, has a `username` field). The others
    /// prove the user an earlier step identified.
    public var identifiesUser: Bool {
        switch type {
        case .usernamePassword, .emailOTP, .approval, .externalBrowser, .passkeys: true
        case .form: user != nil || typesUsername
        case .polling, .recorded: user != nil
        }
    }

    /// Whether one of a form's steps checks the account's password.
    var checksPassword: Bool { formSteps.contains { $0.fields.contains(where: \.isAccountPassword) } }

    /// Whether one of a form's steps has a field named `username` (the user it signs in).
    var typesUsername: Bool {
        formSteps.contains { $0.fields.contains { $0.name == FormFieldConfiguration.usernameField } }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(type, forKey: .type)
        try c.encode(title, forKey: .title)
        try c.encodeIfPresent(user, forKey: .user)
        switch type {
        case .form: try c.encode(formSteps, forKey: .steps)
        case .recorded: try c.encode(recordedSteps.map(CodableJSON.init), forKey: .steps)
        case .polling:
            try c.encodeIfPresent(polling?.clientOperation, forKey: .clientOperation)
            try c.encodeIfPresent(polling?.pollsUntilDone, forKey: .pollsUntilDone)
        default: break
        }
    }
}

/// A `polling` authenticator's launch and its end.
public struct PollingConfiguration: Sendable, Equatable {
    /// The app operations a polling authenticator can start before it polls.
    public enum ClientOperation: String, Codable, Sendable, CaseIterable {
        case bankID = "bankid"
        case encapAutoActivation = "encap-auto-activation"
    }

    /// Started first (a `client-operation` step), or nil for a polling step straight away.
    public var clientOperation: ClientOperation?
    /// The poll that turns the step done; nil: only `haapi approve` does (or the wait runs out).
    public var pollsUntilDone: Int?

    public init(clientOperation: ClientOperation? = nil, pollsUntilDone: Int? = nil) {
        self.clientOperation = clientOperation
        self.pollsUntilDone = pollsUntilDone
    }

    init(from c: KeyedDecodingContainer<AuthenticatorConfiguration.CodingKeys>) throws {
        if c.contains(.clientOperation), try !c.decodeNil(forKey: .clientOperation) {
            clientOperation = try c.decodeChoice(
                ClientOperation.self, forKey: .clientOperation, named: "client operation")
        }
        pollsUntilDone = try c.decodeIfPresent(Int.self, forKey: .pollsUntilDone)
        if let polls = pollsUntilDone, !(1...1000).contains(polls) {
            throw DecodingError.dataCorruptedError(
                forKey: .pollsUntilDone, in: c, debugDescription: "1…1000 polls, not \(polls)")
        }
    }
}

/// One recorded representation: any JSON object, kept as the file has it (member order, number literals).
private struct RecordedStep: Decodable, RawJSONDecodable {
    let value: JSONValue

    init(rawJSON: JSONValue, codingPath: [any CodingKey]) throws {
        guard rawJSON.objectValue != nil else {
            throw StrictDecodingError(
                codingPath: codingPath,
                message:
                    "a recorded step must be a JSON object (a representation as the server sent it), not a \(rawJSON.typeName)"
            )
        }
        value = rawJSON
    }

    init(from decoder: any Decoder) throws {
        let decoded = try CodableJSON(from: decoder).value
        do {
            try self.init(rawJSON: decoded, codingPath: decoder.codingPath)
        } catch let error as StrictDecodingError {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }
}
