import Foundation

/// A login as a graph: the steps a user goes through, in order, where a step is an authenticator or a choice
/// between sequences of steps (which nest). Keycloak calls the sequence a flow of REQUIRED executions and the
/// choice ALTERNATIVE sub-flows; PingAM wires a choice node's outcomes to the next nodes. docs/FLOWS.md has
/// the reference.
///
/// In the file: `{"id": "bank", "steps": ["password", "sms", {"choice": ["bankid", ["encap", "pin"]]}]}`. An
/// option of a choice is an authenticator id (a one-step sequence) or an array of steps.
public struct LoginConfiguration: Sendable, Equatable {
    public var id: String
    public var steps: [LoginStep]

    public init(id: String, steps: [LoginStep]) {
        self.id = id
        self.steps = steps
    }

    /// Every authenticator the login can reach.
    public var authenticatorIDs: Set<String> {
        var ids: Set<String> = []
        func collect(_ steps: [LoginStep]) {
            for step in steps {
                switch step {
                case .authenticator(let id): ids.insert(id)
                case .choice(let options): options.forEach(collect)
                }
            }
        }
        collect(steps)
        return ids
    }
}

/// One step of a login.
public indirect enum LoginStep: Sendable, Equatable {
    /// An authenticator, by its id.
    case authenticator(String)
    /// A choice between sequences of steps; the user takes one.
    case choice([[LoginStep]])

    /// The authenticators that start `option`: its first step, or, when that is a choice, all of that choice's.
    static func entries(of option: [LoginStep]) -> [String] {
        switch option.first {
        case .authenticator(let id)?: [id]
        case .choice(let options)?: options.flatMap(entries(of:))
        case nil: []
        }
    }
}

extension LoginConfiguration: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case id, steps }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        steps = try c.decode([LoginStepCoding].self, forKey: .steps).map(\.step)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(steps.map(LoginStepCoding.init), forKey: .steps)
    }
}

/// A step as the file writes it: an authenticator id, or `{"choice": [option, …]}` where an option is an
/// authenticator id or an array of steps.
private struct LoginStepCoding: Codable {
    let step: LoginStep

    init(_ step: LoginStep) { self.step = step }

    enum CodingKeys: String, CodingKey, CaseIterable { case choice }

    init(from decoder: any Decoder) throws {
        if let id = try? decoder.singleValueContainer().decode(String.self) {
            step = .authenticator(id)
            return
        }
        guard let c = try? decoder.container(keyedBy: CodingKeys.self) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "a step is an authenticator id or {\"choice\": [option, …]}"))
        }
        step = .choice(try c.decode([LoginOptionCoding].self, forKey: .choice).map(\.steps))
    }

    func encode(to encoder: any Encoder) throws {
        switch step {
        case .authenticator(let id):
            var single = encoder.singleValueContainer()
            try single.encode(id)
        case .choice(let options):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(options.map(LoginOptionCoding.init), forKey: .choice)
        }
    }
}

/// An option of a choice: an authenticator id, or an array of steps.
private struct LoginOptionCoding: Codable {
    let steps: [LoginStep]

    init(_ steps: [LoginStep]) { self.steps = steps }

    init(from decoder: any Decoder) throws {
        if let id = try? decoder.singleValueContainer().decode(String.self) {
            steps = [.authenticator(id)]
            return
        }
        steps = try [LoginStepCoding](from: decoder).map(\.step)
    }

    func encode(to encoder: any Encoder) throws {
        if steps.count == 1, case .authenticator(let id) = steps[0] {
            var single = encoder.singleValueContainer()
            try single.encode(id)
        } else {
            try steps.map(LoginStepCoding.init).encode(to: encoder)
        }
    }
}

extension LoginConfiguration {
    /// Checks the login against the configured authenticators, naming the place of a problem
    /// (`logins[0].steps[2].choice[1][0]`): every step names an authenticator, every choice has options that
    /// begin with different authenticators (the selector's option names which one), and every step that proves
    /// the flow's user (one without a `user` of its own) comes after a step that identifies one, on every path.
    func validate(at place: String, authenticators: [AuthenticatorConfiguration]) throws {
        guard !id.isEmpty else { throw ConfigurationError.invalid("\(place).id: a login needs an id") }
        let byID = Dictionary(authenticators.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })

        /// Checks `sequence`; returns whether a user is identified after it, given whether one was before.
        func check(_ sequence: [LoginStep], at place: String, identified: Bool) throws -> Bool {
            guard !sequence.isEmpty else { throw ConfigurationError.invalid("\(place): a sequence needs a step") }
            var known = identified
            for (index, step) in sequence.enumerated() {
                let here = "\(place)[\(index)]"
                switch step {
                case .authenticator(let id):
                    guard let authenticator = byID[id] else {
                        throw ConfigurationError.invalid(
                            "\(here): \"\(id)\" is not one of the configured authenticators (\(byID.keys.sorted().joined(separator: ", ")))"
                        )
                    }
                    if !known, !authenticator.identifiesUser {
                        throw ConfigurationError.invalid(
                            "\(here): \"\(id)\" proves the user an earlier step identified, and no step before it identifies one on every path: put a sign-in step first, or give \"\(id)\" a \"user\""
                        )
                    }
                    known = true
                case .choice(let options):
                    guard !options.isEmpty else {
                        throw ConfigurationError.invalid("\(here).choice: a choice needs at least one option")
                    }
                    var seen: [String: Int] = [:]
                    var allIdentify = true
                    for (number, option) in options.enumerated() {
                        for entry in LoginStep.entries(of: option) {
                            if let other = seen[entry] {
                                throw ConfigurationError.invalid(
                                    "\(here).choice[\(number)]: options \(other) and \(number) both begin with \"\(entry)\"; the selector could not tell them apart"
                                )
                            }
                            seen[entry] = number
                        }
                        allIdentify =
                            try check(option, at: "\(here).choice[\(number)]", identified: known) && allIdentify
                    }
                    known = allIdentify
                }
            }
            return known
        }
        _ = try check(steps, at: "\(place).steps", identified: false)
    }
}

extension ServerConfiguration {
    /// The login `client` walks: the one it names in `login`; else a choice of the authenticators it lists,
    /// or, when it lists none, of every configured authenticator that can begin a login.
    public func login(for client: ClientConfiguration) -> LoginConfiguration {
        if let id = client.login, let login = logins.first(where: { $0.id == id }) { return login }
        let offered =
            client.authenticators.isEmpty ? authenticators.filter(\.identifiesUser).map(\.id) : client.authenticators
        return LoginConfiguration(id: "", steps: [.choice(offered.map { [.authenticator($0)] })])
    }
}
