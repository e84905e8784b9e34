import Hummingbird

/// Services that read URL-encoded request bodies, within the configured size limit.
protocol FormReading {
    var configuration: ServerConfiguration { get }
}

extension FormReading {
    /// Reads the URL-encoded body within the configured size limit.
    func readForm(_ request: inout Request) async throws(Rejection) -> [String: String] {
        do throws(RequestFailure) {
            let form = try await HTTP.form(&request, limit: configuration.security.maxRequestBytes)
            // The client the request claims to be, for its log line until (and unless) it is authenticated.
            if let claimed = form["client_id"] { RequestTrace.client(String(claimed.prefix(100))) }
            return form
        } catch {
            throw Rejection(error.response)
        }
    }
}
