import Foundation
@_spi(Tooling) import HaapiDriver
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import UnixSignals

/// The dev identity server: HAAPI flows, OAuth 2 with DPoP, client attestation and DCR, on SQLite.
///
/// ```swift
/// let server = try DevServer(configuration: .embeddedDefault, store: ServerStore(path: nil))
/// let running = try await server.start()          // 127.0.0.1, a free port
/// print(running.baseURL)
/// await running.stop()
/// ```
public final class DevServer: Sendable {
    public let configuration: ServerConfiguration
    public let outbox = Outbox()
    // The pieces several services share; each service gets the ones it uses through its initializer.
    let store: ServerStore
    let keys: ServerKeys
    let accessTokens: SealedAccessTokens
    let clients: ClientRegistry
    let clientAuthenticator: ClientAuthenticator
    let nonces: DPoPNonceService
    let dpop: DPoPVerifier
    let flows = FlowStore()
    let passwords: PasswordHasher
    let passwordPool = PasswordHashingPool()
    let unknownNameAttempts = UnknownNameAttempts()
    let clock: @Sendable () -> Date
    let address: ServerAddress
    /// The recent requests, for the inspector and the log lines.
    let journal = RequestJournal()
    let requestLog: RequestLogOptions

    // The services (route collections), each with the state it owns.
    let discovery: DiscoveryRoutes
    let attestation: AttestationRoutes
    let tokens: TokenRoutes
    let registration: RegistrationRoutes
    let userInfo: UserInfoRoutes
    let authenticatorService: AuthenticatorRoutes
    let authorization: AuthorizeRoutes
    let admin: AdminRoutes
    let relyingParty: WebAppRelyingPartyRoutes
    let site: SiteRoutes
    let authHub: AuthHubRoutes
    let inspector: InspectorRoutes

    /// - Parameters:
    ///   - clock: the server's notion of now; tests move it to expire codes and tokens.
    ///   - requestLog: where the line for each refused request goes (and, verbose, each accepted one).
    public init(
        configuration: ServerConfiguration, store: ServerStore, scheme: String = "http",
        requestLog: RequestLogOptions = .off, clock: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        try configuration.validate()
        self.configuration = configuration
        self.store = store
        self.clock = clock
        self.requestLog = requestLog
        address = ServerAddress(scheme: scheme)
        keys = try ServerKeys.loadOrCreate(in: store)
        accessTokens = SealedAccessTokens(key: keys.accessTokenKey)
        clients = ClientRegistry(configuration: configuration, store: store)
        clientAuthenticator = ClientAuthenticator(
            registry: clients, assertionReplay: SingleUseCache(capacity: SingleUseCache.singleUseCapacity))
        nonces = DPoPNonceService(rotationInterval: TimeInterval(configuration.dpop.nonceRotationSeconds), now: clock())
        dpop = DPoPVerifier(
            algorithms: Set(
                configuration.dpop.algorithms.compactMap(JWSAlgorithm.init(rawValue:)).filter(\.isAsymmetric)),
            iatWindow: TimeInterval(configuration.dpop.iatWindowSeconds),
            nonces: nonces,
            replayCache: ProofReplayFilter(
                window: configuration.dpop.iatWindowSeconds, proofsPerSecond: configuration.dpop.maxProofsPerSecond))
        passwords = PasswordHasher(iterations: configuration.security.passwordHashIterations)

        discovery = DiscoveryRoutes(
            address: address, configuration: configuration, keys: keys, clients: clients, dpop: dpop)
        attestation = AttestationRoutes(
            address: address, configuration: configuration, store: store, keys: keys, clients: clients, dpop: dpop,
            nonces: nonces, clock: clock,
            appAttest: try configuration.appAttest.map { try AppAttestation(settings: $0, store: store) })
        tokens = TokenRoutes(
            address: address, configuration: configuration, store: store, keys: keys, clients: clients,
            clientAuthenticator: clientAuthenticator, dpop: dpop, nonces: nonces, accessTokens: accessTokens,
            clock: clock)
        registration = RegistrationRoutes(
            address: address, configuration: configuration, store: store, clients: clients, dpop: dpop,
            nonces: nonces, accessTokens: accessTokens, clock: clock)
        userInfo = UserInfoRoutes(
            address: address, store: store, clients: clients, dpop: dpop, nonces: nonces, accessTokens: accessTokens,
            clock: clock)
        authenticatorService = AuthenticatorRoutes(
            address: address, configuration: configuration, store: store, clients: clients, dpop: dpop,
            nonces: nonces, accessTokens: accessTokens, flows: flows, outbox: outbox, passwords: passwords,
            passwordPool: passwordPool, unknownNameAttempts: unknownNameAttempts,
            acceptPatterns: AcceptPatterns(configuration), recordings: configuration.recordings, clock: clock)
        authorization = AuthorizeRoutes(
            address: address, configuration: configuration, store: store, clients: clients, dpop: dpop,
            nonces: nonces, accessTokens: accessTokens, flows: flows, clock: clock,
            authenticatorService: authenticatorService)
        admin = AdminRoutes(address: address, flows: flows, outbox: outbox, clock: clock)
        relyingParty = WebAppRelyingPartyRoutes(
            address: address, configuration: configuration, store: store, clock: clock)
        site = SiteRoutes(address: address, configuration: configuration, clients: clients)
        authHub = AuthHubRoutes(
            address: address, configuration: configuration, store: store, keys: keys, clients: clients,
            outbox: outbox, accessTokens: accessTokens, passwords: passwords, passwordPool: passwordPool,
            unknownNameAttempts: unknownNameAttempts, clock: clock, tokens: tokens)
        inspector = InspectorRoutes(address: address, journal: journal)
        try seedUsers()
    }

    /// The issuer: the base URL clients reach the server at.
    public var issuer: String { address.issuer }

    /// The server's loopback address on this machine (`http://localhost:PORT`): where the local-only pages
    /// (admin, outbox, inspector) answer, whatever the public URL.
    public var localURL: String { "\(address.scheme)://localhost:\(address.boundPort)" }

    var services: [any ServerService] {
        [
            discovery, attestation, tokens, registration, userInfo, authorization, authenticatorService, admin,
            relyingParty, authHub, site, inspector,
        ]
    }

    private func seedUsers() throws {
        for user in configuration.users {
            // validate() has made sure each user has exactly one of the two.
            let conflict = try store.seedUser(
                username: user.username, email: user.email, name: user.name, now: clock(),
                passwordHash: { try user.passwordHash ?? passwords.hash(user.password ?? "") })
            if let conflict {
                throw ConfigurationError.invalid(
                    "user \(user.username): its \(conflict == .usernameTaken ? "username" : "e-mail address") is another user's username or e-mail address"
                )
            }
        }
    }

    func router() -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        // First, so it wraps every route and the router's own "not found".
        router.add(middleware: RequestRecorder(journal: journal, log: requestLog, clock: clock))
        for service in services { service.addRoutes(to: router) }
        return router
    }

    /// Starts serving on `host`:`port` (0 picks a free port) and returns once the socket is bound.
    /// `logLevel` is the HTTP server's own logging (the demo, which shares the terminal, keeps it quiet).
    /// Without `publicURL` the issuer names the bound address, or `loopbackName` (such as `localhost`) in
    /// place of a loopback IP address: browsers refuse an IP address as a passkey RP ID.
    ///
    /// The server and its sweep of expired rows run as one service group, on event loops this start creates (one
    /// a core) and shuts down once the group has returned: each connection is read, answered and written on its
    /// own loop (``ConnectionOnItsLoop``), apart from SwiftNIO's shared loops that a client in the same process
    /// (`haapi demo`, the tests) uses. With `stopsOnSignals` (`haapi serve`) SIGTERM and SIGINT stop it
    /// gracefully, as ``RunningDevServer/stop()`` does: no new connection is accepted, requests in flight get at
    /// most `shutdownGrace` to finish, then the rest is cancelled.
    public func start(
        host: String = "127.0.0.1", port: Int = 0, publicURL: String? = nil, loopbackName: String? = nil,
        logLevel: Logger.Level = .warning, timeouts: ConnectionTimeouts = .standard,
        stopsOnSignals: Bool = false, shutdownGrace: Duration = .seconds(5)
    ) async throws -> RunningDevServer {
        let (portStream, portContinuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "haapi.devserver")
        logger.logLevel = logLevel
        let loops = ServerLoops()
        let application = Application(
            router: router(),
            server: timeouts.http1(on: loops),
            configuration: .init(address: .hostname(host, port: port), serverName: "swift-haapi-dev"),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            eventLoopGroupProvider: .shared(loops.group),
            logger: logger)
        var group = ServiceGroupConfiguration(
            services: [.init(service: application), .init(service: SweepService(server: self))],
            gracefulShutdownSignals: stopsOnSignals ? [.sigterm, .sigint] : [], logger: logger)
        group.maximumGracefulShutdownDuration = shutdownGrace
        let services = ServiceGroup(configuration: group)
        let task = Task {
            // If the server stops before it ever ran (the port is taken), end the wait below too.
            defer { portContinuation.finish() }
            let outcome: Result<Void, any Error>
            do { outcome = .success(try await services.run()) } catch { outcome = .failure(error) }
            // Every connection's task has ended with the group; what else kept their loops' preference goes to
            // Swift's pool from now on (ServerLoops).
            await loops.close()
            try outcome.get()
        }
        var boundPort = 0
        for await value in portStream { boundPort = value }
        guard boundPort > 0 else {
            await services.triggerGracefulShutdown()
            if case .failure(let error) = await task.result {
                throw ServerStartError.couldNotBind("\(host):\(port): \(error)")
            }
            throw ServerStartError.couldNotBind("\(host):\(port)")
        }
        let isLoopback = host == "127.0.0.1" || host == "::1" || host == "localhost"
        let displayHost =
            isLoopback && loopbackName != nil
            ? loopbackName ?? host : host.contains(":") ? "[\(host)]" : (host == "0.0.0.0" ? "127.0.0.1" : host)
        address.set(issuer: publicURL ?? "\(address.scheme)://\(displayHost):\(boundPort)", boundPort: boundPort)
        return RunningDevServer(
            baseURL: URL(string: issuer) ?? URL(fileURLWithPath: "/"), port: boundPort, services: services,
            loops: loops, task: task)
    }

    /// Closes the database (a file's log is checkpointed into it). Call once the server has stopped.
    public func close() throws {
        try store.close()
    }
}

public enum ServerStartError: Error, CustomStringConvertible {
    case couldNotBind(String)

    public var description: String {
        switch self {
        case .couldNotBind(let address): "could not listen on \(address)"
        }
    }
}

/// A server started with `DevServer.start`.
public struct RunningDevServer: Sendable {
    public let baseURL: URL
    public let port: Int
    let services: ServiceGroup
    /// The event loops this server answers on; shut down when it stops.
    let loops: ServerLoops
    let task: Task<Void, any Error>

    /// Stops gracefully: no new connection, requests in flight finish (within the start's grace), then waits
    /// for the server to shut down.
    public func stop() async {
        await services.triggerGracefulShutdown()
        _ = await task.result
    }

    /// Waits until the server stops (for `haapi serve`: on SIGTERM or SIGINT).
    public func wait() async throws {
        try await task.value
    }
}
