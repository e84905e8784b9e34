import Foundation

/// A form field's `accept` pattern, compiled once when the configuration is loaded.
///
/// ICU's matcher backtracks, so a pattern can take exponential time on a value that almost matches it. Two
/// guards: a pattern that repeats a group which itself repeats (`([0-9]+ ?)+`, the classic case) is refused at
/// load; and every match runs under a time budget, stopped through ICU's progress callback, for what a static
/// check cannot see (`(a|a)*`). The routes run matches on the server's worker pool, never on a request thread.
struct AcceptPattern: @unchecked Sendable {
    // @unchecked: NSRegularExpression is immutable once made, and Apple documents it as safe to use from any
    // thread; swift-corelibs-foundation does not mark it Sendable.
    let source: String
    private let expression: NSRegularExpression

    /// How long one value may take to match before it is refused.
    static let budget: TimeInterval = 0.05

    init(_ source: String) throws(Refusal) {
        if let nesting = Self.nestedRepetition(in: source) { throw .nestedRepetition(nesting) }
        do {
            // Anchored with \A and \z: a trailing newline is no way around it.
            expression = try NSRegularExpression(pattern: "\\A(?:" + source + ")\\z")
        } catch {
            throw .doesNotCompile
        }
        self.source = source
    }

    enum Refusal: Error, Equatable {
        case doesNotCompile
        /// The group that repeats a repetition, as written.
        case nestedRepetition(String)

        func message(for pattern: String) -> String {
            switch self {
            case .doesNotCompile:
                "the regular expression \"\(pattern)\" does not compile"
            case .nestedRepetition(let group):
                "the regular expression \"\(pattern)\" repeats \(group), which repeats inside: a value that almost matches can take minutes; write it without the nesting ([0-9 ]+ instead of ([0-9]+ ?)+), or make the group atomic with (?>…)"
            }
        }
    }

    enum Outcome: Equatable { case matches, doesNotMatch, tooSlow }

    /// Whether the whole of `value` matches, within `budget` seconds.
    func match(_ value: String, budget: TimeInterval = Self.budget) -> Outcome {
        let deadline = Date().addingTimeInterval(budget)
        var outcome = Outcome.doesNotMatch
        expression.enumerateMatches(
            in: value, options: [.reportProgress], range: NSRange(value.startIndex..<value.endIndex, in: value)
        ) { result, _, stop in
            if result != nil {
                outcome = .matches
                stop.pointee = true
            } else if Date() >= deadline {
                outcome = .tooSlow
                stop.pointee = true
            }
        }
        return outcome
    }

    /// The first group that is repeated (more than once) and holds a repetition itself, as written; nil when
    /// there is none. Atomic groups `(?>…)` and possessive quantifiers (`++`, `*+`) do not backtrack and count
    /// as no repetition.
    static func nestedRepetition(in pattern: String) -> String? {
        let characters = Array(pattern)
        struct Group {
            let start: Int
            let isAtomic: Bool
            var repeats = false
        }
        var groups = [Group(start: 0, isAtomic: false)]
        var index = 0

        /// Reads a quantifier at `index`: whether it allows more than one repetition, whether it is possessive.
        func quantifier() -> (many: Bool, possessive: Bool)? {
            guard index < characters.count else { return nil }
            var many: Bool
            switch characters[index] {
            case "*", "+":
                many = true
                index += 1
            case "?":
                many = false
                index += 1
            case "{":
                guard let close = characters[index...].firstIndex(of: "}") else { return nil }
                let bounds = String(characters[(index + 1)..<close]).split(
                    separator: ",", omittingEmptySubsequences: false)
                guard (1...2).contains(bounds.count), bounds.allSatisfy({ $0.allSatisfy(\.isNumber) }) else {
                    return nil
                }
                let upper = bounds.count == 2 ? bounds[1] : bounds[0]
                // No upper bound, or one above 1 (a number too large for Int is above 1 too).
                many = upper.isEmpty || (Int(upper).map { $0 > 1 } ?? true)
                index = close + 1
            default:
                return nil
            }
            var possessive = false
            if index < characters.count, characters[index] == "+" {
                possessive = true
                index += 1
            } else if index < characters.count, characters[index] == "?" {
                index += 1
            }
            return (many, possessive)
        }

        while index < characters.count {
            let character = characters[index]
            switch character {
            case "\\":
                // \Q…\E is literal text; any other escape is one atom.
                if index + 1 < characters.count, characters[index + 1] == "Q" {
                    let rest = String(characters[(index + 2)...])
                    let end = rest.range(of: "\\E").map { rest.distance(from: rest.startIndex, to: $0.upperBound) }
                    index += 2 + (end ?? rest.count)
                } else {
                    index += 2
                }
                if let found = quantifier(), found.many, !found.possessive { groups[groups.count - 1].repeats = true }
            case "[":
                // A set, which ICU lets nest: one atom.
                var depth = 0
                repeat {
                    if characters[index] == "\\" {
                        index += 1
                    } else if characters[index] == "[" {
                        depth += 1
                    } else if characters[index] == "]" {
                        depth -= 1
                    }
                    index += 1
                } while depth > 0 && index < characters.count
                if let found = quantifier(), found.many, !found.possessive { groups[groups.count - 1].repeats = true }
            case "(":
                let isAtomic =
                    index + 2 < characters.count && characters[index + 1] == "?" && characters[index + 2] == ">"
                groups.append(Group(start: index, isAtomic: isAtomic))
                index += 1
            case ")":
                guard groups.count > 1, let group = groups.popLast() else { return nil }
                let end = index
                index += 1
                let found = quantifier()
                if let found, found.many, !found.possessive, group.repeats, !group.isAtomic {
                    return String(characters[group.start...end]) + String(characters[(end + 1)..<index])
                }
                if (group.repeats && !group.isAtomic) || (found.map { $0.many && !$0.possessive } ?? false) {
                    groups[groups.count - 1].repeats = true
                }
            default:
                index += 1
                if let found = quantifier(), found.many, !found.possessive { groups[groups.count - 1].repeats = true }
            }
        }
        return nil
    }
}

/// Every `accept` pattern of the configuration, compiled once when the server starts.
struct AcceptPatterns: Sendable {
    private let compiled: [String: AcceptPattern]

    init(_ configuration: ServerConfiguration) {
        var compiled: [String: AcceptPattern] = [:]
        for authenticator in configuration.authenticators {
            for field in authenticator.formSteps.flatMap(\.fields) {
                // The configuration was validated: each pattern compiles.
                if let source = field.accept, compiled[source] == nil, let pattern = try? AcceptPattern(source) {
                    compiled[source] = pattern
                }
            }
        }
        self.compiled = compiled
    }

    subscript(source: String) -> AcceptPattern? { compiled[source] }
}
