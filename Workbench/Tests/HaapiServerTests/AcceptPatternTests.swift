import Foundation
@_spi(Tooling) import HaapiModel
import HaapiRawClient
import Testing

@testable import HaapiServer

/// `accept` patterns (issue 49 item 6): compiled once, a repeated repetition refused at load, every match
/// bounded in time and run on the worker pool.
@Suite("Accept patterns: no catastrophic backtracking on the server")
struct AcceptPatternTests {
    @Test(
        "a group that repeats a repetition is found; atomic groups, possessive quantifiers, escapes and sets are not",
        arguments: [
            ("([0-9]+ ?)+", "([0-9]+ ?)+"), ("(a+)+b", "(a+)+"), ("(a*)*", "(a*)*"), ("x((ab)+c)*", "((ab)+c)*"),
            (#"(\d+){2,}"#, #"(\d+){2,}"#), ("(?:x+y?)+", "(?:x+y?)+"), (#"([a-z]+\.)+com"#, #"([a-z]+\.)+"#),
            ("((a)+)+", "((a)+)+"), ("(a{2,9}){3}", "(a{2,9}){3}"), ("(a[bc]+)*?", "(a[bc]+)*?"),
        ])
    func nested(pattern: String, group: String) {
        #expect(AcceptPattern.nestedRepetition(in: pattern) == group)
        #expect(throws: AcceptPattern.Refusal.nestedRepetition(group)) { try AcceptPattern(pattern) }
    }

    @Test(
        "patterns without a repeated repetition load",
        arguments: [
            "[0-9]{6}", "(SE|NO)[0-9]{10}", "(?>a+)+", "(a+)++", "(ab)+", "[(+]+", #"\(a+\)+"#, #"\Q(a+)+\E"#,
            "(a+)?", "(a+){1}", "[a-z&&[^q]]+", #"[^@\s]+@[^@\s]+"#, "(a|b)*c",
        ])
    func safe(pattern: String) throws {
        #expect(AcceptPattern.nestedRepetition(in: pattern) == nil)
        _ = try AcceptPattern(pattern)
    }

    @Test("a match the static check cannot see is stopped at its budget; a match within it answers")
    func budget() throws {
        let overlapping = try AcceptPattern("(a|a)*b")
        #expect(overlapping.match(String(repeating: "a", count: 40) + "x", budget: 0.02) == .tooSlow)
        #expect(overlapping.match("aaab") == .matches)
        #expect(overlapping.match("aaa\nb") == .doesNotMatch)
        let code = try AcceptPattern("[0-9]{6}")
        #expect(code.match("123456") == .matches && code.match("123456\n") == .doesNotMatch)
    }

    @Test("the review's pattern is refused at load with what to write instead")
    func refusedAtLoad() throws {
        let json =
            #"{"clients":[],"users":[{"username":"u","password":"p"}],"authenticators":[{"id":"f","type":"form","title":"F","user":"u","steps":[{"title":"T","fields":[{"name":"n","type":"text","accept":"([0-9]+ ?)+"}]}]}]}"#
        #expect {
            try ServerConfiguration.load(json: Data(json.utf8))
        } throws: { error in
            (error as? ConfigurationError)?.detail.hasPrefix(
                #"authenticators[0].steps[0].fields[0].accept: the regular expression "([0-9]+ ?)+" repeats ([0-9]+ ?)+, which repeats inside"#
            )
                ?? false
        }
        var configuration = try ServerConfiguration.embeddedDefault
        configuration.authenticators.append(
            AuthenticatorConfiguration(
                id: "f", type: .form, title: "F", user: "demouser",
                formSteps: [.init(title: "T", fields: [.init(name: "n", type: .text, accept: "(a+)+")])]))
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
    }

    @Test(
        "four clients posting a slow value at once: each is refused as invalid, on the worker pool, and the flow goes on"
    )
    func slowValuesOnThePool() async throws {
        var configuration = try TestConfiguration.make()
        configuration.authenticators.append(
            AuthenticatorConfiguration(
                id: "slow", type: .form, title: "Slow", user: "approver",
                formSteps: [.init(title: "T", fields: [.init(name: "n", type: .text, accept: "(a|a)*b")])]))
        configuration.clients[0].login = nil
        let server = try await TestServer(configuration: configuration)
        defer { Task { await server.stop() } }
        let pool = server.server.passwordPool
        let evil = String(repeating: "a", count: 40) + "x"
        let before = pool.completedJobs
        let refusals = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let device = try await AuthenticatorTests.device(server)
                    let step = try await device.startAuthenticator("slow")
                    let answer = try await device.submit(step.json["actions"]?[0], [("n", evil)])
                    let invalid = try AuthenticatorTests.problem(answer) as? InvalidInputProblem
                    return invalid?.invalidFields.map(\.name) ?? []
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(pool.completedJobs - before == 4, "the matches ran as jobs of the pool")
        #expect(refusals == Array(repeating: ["n"], count: 4))
        let device = try await AuthenticatorTests.device(server)
        let step = try await device.startAuthenticator("slow")
        let action = step.json["actions"]?[0]
        #expect(
            try AuthenticatorTests.problem(try await device.submit(action, [("n", evil)])).type == .invalidInputProblem)
        let done = try await device.submit(action, [("n", "aab")])
        #expect(try await ConfiguredFlowTests.signedInUser(after: done, device) == "approver")
    }
}
