import Foundation
import HaapiServer
@_spi(Tooling) import HaapiUI

/// The file `haapi login --record FILE` writes: a configuration `haapi serve --config FILE` starts as it is (a
/// client for the recorded app, the user the replay signs in, and the recording as its only authenticator).
/// Recording into a file that holds one adds the path taken as a branch of it.
enum RecordingFile {
    static let authenticatorID = "recorded"
    static let user = "demouser"

    struct Written {
        let steps: Int
        let added: Int
    }

    static func write(
        _ path: [RecordedVisit], to file: String, clientId: String, redirectURI: String, scopes: [String], host: String
    ) throws -> Written {
        var configuration = try existing(file) ?? JSONObject()
        var authenticators = configuration["authenticators"]?.arrayValue ?? []
        let index =
            authenticators.firstIndex { $0["type"] == "recorded" && $0["id"] == .string(authenticatorID) }
            ?? authenticators.firstIndex { $0["type"] == "recorded" }
        var authenticator: JSONObject =
            index.flatMap { authenticators[$0].objectValue } ?? [
                "id": .string(authenticatorID), "type": "recorded", "title": .string("Recorded login (\(host))"),
                "user": .string(user),
            ]
        let before = authenticator["steps"]?.arrayValue ?? []
        let steps: [JSONValue]
        do {
            steps = try RecordingMerge.add(path, to: before)
        } catch {
            throw CLIFailure("--record: \(error) (\(file) is unchanged)", code: ExitCodes.dataError)
        }
        authenticator["steps"] = .array(steps)
        if let index {
            authenticators[index] = .object(authenticator)
        } else {
            authenticators.append(.object(authenticator))
        }
        configuration["authenticators"] = .array(authenticators)
        var clients = configuration["clients"]?.arrayValue ?? []
        if !clients.contains(where: { $0["id"] == .string(clientId) }) {
            clients.append(
                [
                    "id": .string(clientId), "attestation": "software", "tokenBoundCodes": true, "dpopNonce": true,
                    "redirectURIs": [.string(redirectURI)], "scopes": .array(scopes.map(JSONValue.string)),
                ])
        }
        configuration["clients"] = .array(clients)
        var users = configuration["users"]?.arrayValue ?? []
        let signsIn = authenticator["user"]?.stringValue ?? user
        if !users.contains(where: { $0["username"] == .string(signsIn) }) {
            users.append(["username": .string(signsIn), "passwordHash": .string(ServerConfiguration.demoPasswordHash)])
        }
        configuration["users"] = .array(users)
        // Checked as the server will read it, before anything is written.
        let text = JSONValue.object(configuration).prettyPrinted() + "\n"
        do {
            _ = try ServerConfiguration.load(json: Data(text.utf8))
        } catch let error as ConfigurationError {
            throw CLIFailure(
                "--record: the result would not start haapi serve: \(error.detail)", code: ExitCodes.dataError)
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            throw CLIFailure("--record: cannot write \(file): \(error.localizedDescription)", code: ExitCodes.noInput)
        }
        return Written(steps: steps.count, added: steps.count - before.count)
    }

    /// The configuration already in `file`; a bare recorded authenticator (what earlier versions wrote) becomes
    /// the configuration that holds it. Nil when there is no file.
    private static func existing(_ file: String) throws -> JSONObject? {
        guard FileManager.default.fileExists(atPath: file) else { return nil }
        let value: JSONValue
        do {
            value = try JSONParser().parse(try Data(contentsOf: URL(fileURLWithPath: file)))
        } catch {
            throw CLIFailure("--record: \(file) exists and is not JSON: \(error)", code: ExitCodes.dataError)
        }
        guard case .object(let object) = value else {
            throw CLIFailure("--record: \(file) exists and is not a configuration", code: ExitCodes.dataError)
        }
        if object["type"] == "recorded" { return ["authenticators": [value]] }
        guard object["authenticators"] != nil || object["clients"] != nil else {
            throw CLIFailure(
                "--record: \(file) exists and is not a configuration (no authenticators)", code: ExitCodes.dataError)
        }
        return object
    }
}
