import Foundation
@_spi(Tooling) import HaapiModel
import Testing

@Suite("Problems (protocol notes §8)")
struct ProblemTests {
    @Test(
        "every problem URI maps to its case",
        arguments: [
            ("https://curity.se/problems/invalid-input", ProblemType.invalidInputProblem),
            ("https://curity.se/problems/incorrect-credentials", .incorrectCredentialsProblem),
            ("https://curity.se/problems/authentication-failed", .authenticationFailedProblem),
            ("https://curity.se/problems/too-many-attempts", .tooManyAttemptsProblem),
            ("https://curity.se/problems/unexpected", .unexpectedProblem),
            ("https://curity.se/problems/generic-user-error", .genericUserProblem),
            (
                "https://curity.se/problems/mismatch-between-session-and-access-token",
                .sessionAndAccessTokenMismatchProblem
            ),
            ("https://curity.se/problems/error-authorization-response", .errorAuthorizationResponseProblem),
        ])
    func problemTypes(uri: String, expected: ProblemType) throws {
        #expect(ProblemType(rawValue: uri) == expected)
        guard
            case .problem(let problem) = try HaapiDecoder().decode(
                Data(#"{"type":"\#(uri)","title":"T","error":"e"}"#.utf8))
        else {
            Issue.record("not a problem")
            return
        }
        #expect(problem.type == expected)
        #expect(problem.title?.literal == "T")
    }

    @Test("an unknown problem URI is kept as other")
    func otherProblem() throws {
        let problem = try decodeProblem(#"{"type":"https://example.com/problems/quota","title":"Quota","limit":3}"#)
        #expect(problem is Problem)
        #expect(problem.type == .other(value: "https://example.com/problems/quota"))
        #expect(problem.rawJSON["limit"] == 3)
        #expect(!problem.type.isRecoverableInStep)
    }

    @Test("invalid input: invalidFields and error_description")
    func invalidInput() throws {
        let problem = try #require(
            try decodeProblem(
                """
                {"type":"https://curity.se/problems/invalid-input","error_description":"Fix it","invalidFields":[
                  {"name":"email","reason":"missing","detail":"Required"},{"name":"age"}]}
                """) as? InvalidInputProblem)
        #expect(problem.errorDescription == "Fix it")
        #expect(
            problem.invalidFields == [
                .init(name: "email", reason: "missing", detail: Message(literal: "Required")),
                .init(name: "age", reason: nil, detail: nil),
            ])
    }

    @Test("authorization problem: error, error_description, iss; code on any problem")
    func authorizationProblem() throws {
        let problem = try #require(
            try decodeProblem(
                """
                {"type":"https://curity.se/problems/error-authorization-response","error":"access_denied",
                 "error_description":"User said no","iss":"https://idp","code":"access_denied"}
                """) as? AuthorizationProblem)
        #expect(problem.error == "access_denied")
        #expect(problem.errorDescription == "User said no")
        #expect(problem.iss == "https://idp")
        #expect(problem.code == "access_denied")
        expectDecodingError(
            #"{"type":"https://curity.se/problems/error-authorization-response"}"#, path: "error",
            reason: .missingMember)
    }

    @Test("the content type decides between step and problem when given")
    func contentTypeDispatch() throws {
        let body = Data(#"{"type":"https://curity.se/problems/unexpected"}"#.utf8)
        guard case .problem = try HaapiDecoder().decode(body, contentType: "application/problem+json; charset=utf-8")
        else {
            Issue.record("expected a problem")
            return
        }
        guard case .representation(let step) = try HaapiDecoder().decode(body, contentType: "application/vnd.auth+json")
        else {
            Issue.record("expected a representation")
            return
        }
        #expect(step is GenericRepresentationStep)
        guard case .representation = try HaapiDecoder().decode(Data(#"{"type":"authentication-step"}"#.utf8)) else {
            Issue.record("a token type is a step")
            return
        }
    }
}
