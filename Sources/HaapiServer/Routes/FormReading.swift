import Hummingbird

/// Services that read URL-encoded request bodies, within the configured size limit.
protocol FormReading {
    var configuration: ServerConfiguration { get }
}

extension FormReading {
    /// Reads the URL-encoded body within the configured size limit.
    func readForm(_ request: inout Request) async throws(Rejection) -> [String: String] {
        do throws(RequestFailure) {
            return try await HTTP.form(&request, limit: configuration.security.maxRequestBytes)
        } catch {
            throw Rejection(error.response)
        }
    }
}
