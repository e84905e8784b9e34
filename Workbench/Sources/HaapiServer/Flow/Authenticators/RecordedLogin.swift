import Foundation
@_spi(Tooling) import HaapiModel

/// A `recorded` authenticator's representations as a graph: each recorded step, the action of it that was
/// followed to each next step (a selector keeps every option, and each option recorded leads on), and how
/// often a waiting step was answered before it moved on.
///
/// In the configuration a step is `{"representation": {…}, "next": {"actions[0].model.options[1]": 3, …},
/// "polls": 2}`, where a target is a step's index or `"finish"` (the end, which signs the user in). A plain
/// list of representations is a recording of one path: the first form of each step leads to the next (and
/// the last one's to the end), and any other action whose recorded address is that of some step's first form
/// leads there.
struct RecordedLogin: Sendable, Equatable {
    enum Target: Sendable, Hashable {
        case step(Int)
        case finish
    }

    struct Step: Sendable, Equatable {
        var representation: JSONValue
        /// Where each followed action leads, by its place in the representation.
        var next: [ActionLocation: Target]
        /// How many times the step is answered in a row before its `poll` action leads on (a waiting step
        /// recorded as pending that often); 1 for any other.
        var polls: Int
    }

    var steps: [Step]

    /// Reads a recording as the configuration holds it; the error says what is wrong and where, from `steps`.
    init(configured: [JSONValue]) throws(RecordingError) {
        guard !configured.isEmpty else { throw RecordingError("", "a recording needs at least one step") }
        if configured.contains(where: Self.isNode) {
            steps = []
            for (index, value) in configured.enumerated() {
                steps.append(try Self.node(value, at: index, count: configured.count))
            }
        } else {
            steps = Self.linear(configured)
        }
    }

    init(steps: [Step]) {
        self.steps = steps
    }

    /// The configuration's form of the recording: one node per step.
    var configured: [JSONValue] {
        steps.map { step in
            var object: JSONObject = ["representation": step.representation]
            object["next"] = .object(
                JSONObject(
                    step.next.sorted { $0.key.description < $1.key.description }.map { location, target in
                        (location.description, target.json)
                    }))
            if step.polls > 1 { object["polls"] = .number(JSONNumber(step.polls)) }
            return .object(object)
        }
    }

    /// Whether a recorded representation is a problem (its type is a URI, `https://curity.se/problems/…`)
    /// rather than a step (`authentication-step`).
    static func isProblem(_ representation: JSONValue) -> Bool {
        representation["type"]?.stringValue?.contains("://") ?? false
    }

    // MARK: Serving

    /// Step `index` as the `repeats`-th answer in a row (from 1), with every action and link leading where the
    /// recording says: `address(.step(k))`, `address(.finish)`, or, for what was not recorded,
    /// `notRecorded(location)`.
    func served(
        _ index: Int, repeats: Int, address: (Target) -> String, notRecorded: (ActionLocation) -> String
    ) -> JSONValue {
        guard steps.indices.contains(index) else { return .null }
        let step = steps[index]
        var representation = step.representation
        for location in ActionLocation.all(in: step.representation) {
            let target = self.target(from: index, location, repeats: repeats)
            location.setHref(target.map(address) ?? notRecorded(location), in: &representation)
        }
        return representation
    }

    /// Where following `location` of step `index` leads, answered `repeats` times so far: a waiting step's
    /// `poll` action leads back to it until it was answered as often as recorded.
    func target(from index: Int, _ location: ActionLocation, repeats: Int) -> Target? {
        guard steps.indices.contains(index), let target = steps[index].next[location] else { return nil }
        let step = steps[index]
        if repeats < step.polls, location.kind(in: step.representation) == "poll" { return .step(index) }
        return target
    }

    /// Whether step `index`, answered `repeats` times, has an action that leads to `target`.
    func leads(from index: Int, repeats: Int, to target: Target) -> Bool {
        guard steps.indices.contains(index) else { return false }
        return steps[index].next.keys.contains { self.target(from: index, $0, repeats: repeats) == target }
    }

    /// The title of the action at `location` of step `index`, for a problem that names it.
    func title(of location: ActionLocation, in index: Int) -> String? {
        guard steps.indices.contains(index) else { return nil }
        return location.title(in: steps[index].representation)
    }

    // MARK: Reading the configuration

    private static func isNode(_ value: JSONValue) -> Bool {
        value["representation"]?.objectValue != nil && value["type"] == nil
    }

    private static func node(_ value: JSONValue, at index: Int, count: Int) throws(RecordingError) -> Step {
        let place = "[\(index)]"
        guard case .object(let object) = value, let representation = object["representation"],
            representation.objectValue != nil
        else {
            throw RecordingError(
                place, "in a recording with branches every step is {\"representation\": {…}, \"next\": {…}}")
        }
        if let unknown = object.keys.first(where: { !["representation", "next", "polls"].contains($0) }) {
            throw RecordingError(
                place + ".\(unknown)", "unknown key \"\(unknown)\" (known: representation, next, polls)")
        }
        var next: [ActionLocation: Target] = [:]
        if let listed = object["next"] {
            guard case .object(let edges) = listed else { throw RecordingError(place + ".next", "expected an object") }
            for (text, targetValue) in edges {
                guard let location = ActionLocation(text), location.exists(in: representation) else {
                    throw RecordingError(
                        place + ".next", "\"\(text)\" is not the place of an action or link of this step")
                }
                switch targetValue {
                case .string("finish"): next[location] = .finish
                case .number(let number):
                    guard let target = Int(number.literal), (0..<count).contains(target) else {
                        throw RecordingError(
                            place + ".next.\(text)", "\(number.literal) is not a step of the recording")
                    }
                    next[location] = .step(target)
                default:
                    throw RecordingError(place + ".next.\(text)", "expected a step's index or \"finish\"")
                }
            }
        }
        var polls = 1
        if let value = object["polls"] {
            guard let number = value.numberValue, let parsed = Int(number.literal), (1...1000).contains(parsed) else {
                throw RecordingError(place + ".polls", "expected a whole number from 1 to 1000")
            }
            polls = parsed
        }
        return Step(representation: representation, next: next, polls: polls)
    }

    /// A list of representations as one recorded path.
    private static func linear(_ representations: [JSONValue]) -> [Step] {
        // The recorded path of each step's first form → the step it led to.
        var firstFormPaths: [String: Int] = [:]
        for index in representations.indices.dropLast() {
            guard let location = ActionLocation.firstForm(in: representations[index]),
                let path = location.href(in: representations[index]).flatMap(Self.path(of:)),
                firstFormPaths[path] == nil
            else { continue }
            firstFormPaths[path] = index + 1
        }
        return representations.enumerated().map { index, representation in
            var next: [ActionLocation: Target] = [:]
            for location in ActionLocation.all(in: representation) {
                if let path = location.href(in: representation).flatMap(Self.path(of:)),
                    let target = firstFormPaths[path]
                {
                    next[location] = .step(target)
                }
            }
            if let first = ActionLocation.firstForm(in: representation) {
                next[first] = index == representations.count - 1 ? .finish : .step(index + 1)
            }
            return Step(representation: representation, next: next, polls: 1)
        }
    }

    /// The path of an address, absolute or relative, without query or fragment: what two recordings of one
    /// server action share (the query often carries a nonce).
    static func path(of href: String) -> String? {
        guard let components = URLComponents(string: href), !components.percentEncodedPath.isEmpty else { return nil }
        return components.percentEncodedPath
    }
}

extension RecordedLogin.Target {
    var json: JSONValue {
        switch self {
        case .step(let index): .number(JSONNumber(index))
        case .finish: "finish"
        }
    }
}

/// What is wrong with a recording, and where (relative to its `steps`).
struct RecordingError: Error, Equatable {
    let place: String
    let message: String

    init(_ place: String, _ message: String) {
        self.place = place
        self.message = message
    }
}

extension ServerConfiguration {
    /// The recorded authenticators' graphs, by authenticator id (the configuration was validated: each reads).
    var recordings: [String: RecordedLogin] {
        var recordings: [String: RecordedLogin] = [:]
        for authenticator in authenticators where authenticator.type == .recorded {
            recordings[authenticator.id] = try? RecordedLogin(configured: authenticator.recordedSteps)
        }
        return recordings
    }
}
