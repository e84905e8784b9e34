import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel

/// The run's HTTP: every request counts against a budget stated before the run starts, so `haapi check` is
/// safe to point at a production server (a bounded number of requests, no brute force). The checks stop
/// `reserve` requests short of it: those are kept for revoking the tokens the run obtained, which it records
/// here as they are issued.
///
/// It also sends nothing to another origin than the server's (the issuer's): the checks carry the client's
/// secret, the test user's password and tokens, and a discovery document, or a representation's link, may
/// name any host. Such a request is refused here, before it leaves.
package actor CheckHTTP {
    /// Past the checks' share of the budget the run stops.
    package struct BudgetExhausted: Error {}
    /// A request to another origin than the server's, refused unsent.
    package struct OffOrigin: Error, CustomStringConvertible {
        let url: URL
        package var description: String {
            "haapi check sends nothing to \(DiscoveryChecks.origin(url)), another origin than the server's"
        }
    }

    package let transport: any HTTPTransport
    /// The server's origin (`scheme://host[:port]`): the only one requests go to.
    package let origin: String
    package let budget: Int
    package nonisolated let reserve: Int
    package private(set) var used = 0
    /// Whether a check was refused a request: the report must say the run stopped short.
    package private(set) var stopped = false
    /// The access tokens the run obtained, to revoke at the end (at most one a request).
    package private(set) var issued: [String] = []

    package init(transport: any HTTPTransport, server: URL, budget: Int) {
        self.transport = transport
        origin = DiscoveryChecks.origin(server)
        self.budget = budget
        reserve = min(10, budget / 4)
    }

    /// A check's request, within the budget less the reserve.
    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard DiscoveryChecks.origin(request.url) == origin else { throw OffOrigin(url: request.url) }
        guard used < budget - reserve else {
            stopped = true
            throw BudgetExhausted()
        }
        used += 1
        return try await transport.send(request)
    }

    /// A revocation at the end of the run: it may use the reserve, never more than the budget.
    package func sendCleanup(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard DiscoveryChecks.origin(request.url) == origin else { throw OffOrigin(url: request.url) }
        guard used < budget else { throw BudgetExhausted() }
        used += 1
        return try await transport.send(request)
    }

    /// Records an access token the run obtained.
    package func obtained(_ token: String) { issued.append(token) }

    /// A request as a report line: the method and the path, never the query's or the body's values.
    nonisolated static func line(_ request: HTTPRequest, _ note: String? = nil) -> String {
        request.method + " " + request.url.path + (note.map { " (" + $0 + ")" } ?? "")
    }

    /// An answer as a report line: the status, the OAuth error and its description, with tokens masked.
    nonisolated static func line(_ response: HTTPResponse) -> String {
        var parts = ["\(response.statusCode)"]
        if let object = try? JSONParser(limits: .init(maxBytes: 64 * 1024, maxDepth: 8)).parse(response.body)
            .objectValue
        {
            if let error = object["error"]?.stringValue { parts.append(error) }
            if let description = object["error_description"]?.stringValue { parts.append("\"\(description)\"") }
            if object["access_token"] != nil {
                parts.append("access_token …, token_type \(object["token_type"]?.stringValue ?? "none")")
            }
        }
        if let nonce = response.header("DPoP-Nonce") { parts.append("DPoP-Nonce: \(nonce.prefix(8))…") }
        return parts.joined(separator: " ")
    }
}

/// A transport that counts, for the SDK's own requests in the HAAPI group, and shows `traffic` what went by.
package struct BudgetedTransport: HTTPTransport {
    package let http: CheckHTTP
    package var traffic: HaapiTraffic? = nil

    package func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        do {
            let response = try await http.send(request)
            await traffic?.record(request, response)
            return response
        } catch let error as TransportError {
            throw error
        } catch let error as CheckHTTP.OffOrigin {
            throw .couldNotConnect(error.description)
        } catch {
            throw .couldNotConnect("haapi check: the request budget is used up")
        }
    }
}

/// The HAAPI exchanges of one run, as the HAAPI group reads them afterwards: the representations' bodies
/// (at most 16), and how the flow's session travelled (`Set-Session-Id` answered, `Session-Id` sent back).
package actor HaapiTraffic {
    private(set) var representations: [Data] = []
    private(set) var sessionStarted = false
    private(set) var sessionReturned = false

    package func record(_ request: HTTPRequest, _ response: HTTPResponse) {
        if sessionStarted, request.header(HttpHeaderNames.haapiSessionID) != nil { sessionReturned = true }
        if response.header(HttpHeaderNames.haapiSetSessionID) != nil { sessionStarted = true }
        if response.header("Content-Type")?.lowercased().hasPrefix(MimeTypes.haapi) == true, representations.count < 16
        {
            representations.append(response.body)
        }
    }
}
