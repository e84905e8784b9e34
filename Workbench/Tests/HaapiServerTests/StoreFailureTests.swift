import Foundation
import GRDB
import HaapiRawClient
import Testing

@testable import HaapiServer

/// A failure of the database is the server's error (500, logged), never an answer about the caller: an
/// unknown client, a wrong password or an unknown token would send a client down the wrong path.
@Suite("A database failure is a 500, not 'not found'")
struct StoreFailureTests {
    @Test("with its tables gone, client lookup, password check and token reading answer 500, not 401 or 'incorrect'")
    func failingDatabase() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        // The answers while the database works, for comparison.
        let unknownClient = try await RawHTTP.form(
            server.base + "/oauth/token", [("grant_type", "client_credentials")],
            headers: [RawHTTP.basic("dyn-nobody", "secret")])
        #expect(unknownClient.status == 401 && unknownClient.json["error"] == "invalid_client", "\(unknownClient.text)")

        try await server.server.store.database.write { db in
            try db.execute(sql: "DROP TABLE dynamic_clients; DROP TABLE users; DROP TABLE refresh_tokens")
        }
        let lookup = try await RawHTTP.form(
            server.base + "/oauth/token", [("grant_type", "client_credentials")],
            headers: [RawHTTP.basic("dyn-nobody", "secret")])
        #expect(lookup.status == 500 && lookup.json["error"] == "server_error", "\(lookup.text)")

        let refresh = try await RawHTTP.form(
            server.base + "/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", "anything")],
            headers: [RawHTTP.basic("secret-basic", "basic-secret")])
        #expect(refresh.status == 500 && refresh.json["error"] == "server_error", "\(refresh.text)")

        do {
            _ = try await server.server.authenticatorService.checkPassword(username: "demouser", password: "Password1")
            Issue.record("a password check on a failing database answered instead of failing")
        } catch {}
    }
}
