import Foundation
@_spi(Tooling) import HaapiDriver
import Hummingbird

/// Where the server is reached: its public base URL, known once `DevServer.start` has bound the port (or
/// given by `--public-url`). Every service reads it; only `start` sets it.
final class ServerAddress: Sendable {
    let scheme: String
    private let bound = LockedValue((issuer: "", port: 0))

    init(scheme: String) {
        self.scheme = scheme
        bound.set(("\(scheme)://127.0.0.1", 0))
    }

    var issuer: String { bound.get().issuer }

    /// The port the server listens on (0 before `start`).
    var boundPort: Int { bound.get().port }

    func set(issuer: String, boundPort: Int) { bound.set((issuer, boundPort)) }
}

/// One of the dev server's services: a route collection with the state it owns, built by `DevServer` with
/// the shared pieces it needs passed to its initializer.
protocol ServerService: PublicAddressing {
    func addRoutes(to router: Router<ServerRequestContext>)
}
