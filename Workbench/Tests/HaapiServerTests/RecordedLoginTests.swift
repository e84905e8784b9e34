import Foundation
@_spi(Tooling) import HaapiModel
import Testing

@testable import HaapiServer

/// Recordings as graphs (issue 49 item 4): how a file's steps are read, and how a new path joins them.
@Suite("Recorded logins as graphs")
struct RecordedLoginTests {
    static let selector: JSONValue = [
        "type": "authentication-step",
        "actions": [
            [
                "template": "selector", "kind": "authenticator-selector",
                "model": [
                    "options": [
                        [
                            "template": "form", "kind": "select-authenticator", "title": "A",
                            "model": ["href": "/a", "method": "GET"],
                        ],
                        [
                            "template": "form", "kind": "select-authenticator", "title": "B",
                            "model": ["href": "/b", "method": "GET"],
                        ],
                    ]
                ],
            ]
        ],
    ]

    static func form(_ kind: String, _ href: String) -> JSONValue {
        [
            "type": "authentication-step",
            "actions": [
                ["template": "form", "kind": .string(kind), "model": ["href": .string(href), "method": "POST"]]
            ],
        ]
    }

    static let pending: JSONValue = [
        "type": "polling-step", "properties": ["status": "pending"],
        "actions": [["template": "form", "kind": "poll", "model": ["href": "/poll", "method": "GET"]]],
    ]

    @Test("a second path joins the first where it takes another option; waits answered pending in a row are one step")
    func merge() throws {
        let first = [
            RecordedVisit(representation: Self.selector, followed: "actions[0].model.options[0]"),
            RecordedVisit(representation: Self.form("login", "/a/login"), followed: "actions[0]", finishes: true),
        ]
        let once = try RecordingMerge.add(first, to: [])
        let second = [
            RecordedVisit(representation: Self.selector, followed: "actions[0].model.options[1]"),
            RecordedVisit(representation: Self.pending, followed: "actions[0]"),
            RecordedVisit(representation: Self.pending, followed: "actions[0]"),
            RecordedVisit(representation: Self.pending, followed: "actions[0]"),
            RecordedVisit(representation: Self.form("redirect", "/done"), followed: "actions[0]", finishes: true),
        ]
        let twice = try RecordingMerge.add(second, to: once)
        let login = try RecordedLogin(configured: twice)
        #expect(login.steps.count == 4)
        #expect(login.steps[0].next.count == 2 && login.steps[2].polls == 3)
        // Served: the wait leads back to itself until answered three times, then on.
        let poll = try #require(ActionLocation("actions[0]"))
        #expect(
            login.target(from: 2, poll, repeats: 1) == .step(2) && login.target(from: 2, poll, repeats: 3) == .step(3))
        #expect(login.leads(from: 3, repeats: 1, to: .finish) && !login.leads(from: 0, repeats: 1, to: .finish))
        // Again: nothing new.
        #expect(try RecordingMerge.add(second, to: twice) == twice)
        // The same option answered with another step: refused, not merged.
        let other = [
            RecordedVisit(representation: Self.selector, followed: "actions[0].model.options[0]"),
            RecordedVisit(representation: Self.pending, followed: "actions[0]"),
        ]
        #expect(throws: RecordingMergeError.self) { try RecordingMerge.add(other, to: twice) }
    }

    @Test(
        "a recording's steps are checked at load, each problem at its place",
        arguments: [
            (#"{"representation":{"type":"x"},"nxt":{}}"#, ".steps[0].nxt: unknown key"),
            (
                #"{"representation":{"type":"x","actions":[]},"next":{"actions[0]":"finish"}}"#,
                ".steps[0].next: \"actions[0]\" is not the place"
            ),
            (
                #"{"representation":{"type":"x","actions":[{"template":"form","model":{"href":"/a"}}]},"next":{"actions[0]":7}}"#,
                ".steps[0].next.actions[0]: 7 is not a step"
            ),
            (#"{"representation":{"type":"x"},"polls":0}"#, ".steps[0].polls: expected a whole number from 1 to 1000"),
        ])
    func badRecording(step: String, expected: String) throws {
        let json =
            #"{"clients":[],"users":[{"username":"u","password":"p"}],"authenticators":[{"id":"r","type":"recorded","title":"R","user":"u","steps":["#
            + step + "]}]}"
        #expect {
            try ServerConfiguration.load(json: Data(json.utf8))
        } throws: { error in
            (error as? ConfigurationError)?.detail.hasPrefix("authenticators[0]" + expected) ?? false
        }
    }
}
