import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `HTTPTransport` over URLSession: the SDK's transport on every platform (FoundationNetworking's on Linux).
/// Redirects are not followed: a HAAPI server answers with steps, and a 3xx must reach the caller as it is.
/// Every exchange has a deadline even if the session never calls back, and a body larger than
/// `maxResponseBytes` ends the exchange as soon as it passes the limit. On Apple platforms `init(tls:…)` adds key
/// pinning, private trust roots and a client identity (mTLS) through the session's delegate; on Linux those need
/// the HaapiAsyncHTTPClient transport of swift-haapi-integrations.
///
/// The body is collected by the session's delegate as it arrives, not by a completion handler: on Linux,
/// FoundationNetworking turns a 401 that challenges for HTTP authentication (`WWW-Authenticate: Basic`, as a
/// token endpoint answers a wrong client secret) into a wait for a credential and hands a completion handler no
/// body; the delegate has the whole answer before that challenge, and the exchange returns it.
///
/// On Linux, each request other than GET and HEAD goes through a session of its own, so on a new connection:
/// when a kept-alive connection dies under a POST, curl (under FoundationNetworking) starts the POST again on
/// another connection and never sends its body, and the exchange would wait for its whole deadline; on a
/// connection of its own, a lost answer is reported at once (`TransportError.answerLost`) and the POST is never
/// sent twice. Apple's URLSession never sends a POST again by itself.
public final class URLSessionTransport: HTTPTransport, Sendable {
    private let session: URLSession
    private let delegate: SessionDelegate
    #if canImport(FoundationNetworking)
    /// What a request that is not safe to send twice gets a session of its own with.
    private let configuration: URLSessionConfiguration
    #endif
    /// The deadline of an exchange that sets none, in seconds.
    public let timeout: TimeInterval
    /// The largest body accepted; a larger one is `TransportError.responseTooLarge`.
    public let maxResponseBytes: Int

    /// A transport over a session with `configuration` (ephemeral by default: no cookies, no cache).
    public convenience init(
        configuration: URLSessionConfiguration = .ephemeral, timeout: TimeInterval = 30,
        maxResponseBytes: Int = 4 * 1024 * 1024
    ) {
        self.init(
            configuration: configuration, timeout: timeout, maxResponseBytes: maxResponseBytes,
            delegate: SessionDelegate())
    }

    #if canImport(Security) && canImport(Darwin)
    /// A transport whose TLS connections follow `tls`: pins, trusted roots, hostname checking, client identity.
    public convenience init(
        tls: TLSOptions, configuration: URLSessionConfiguration = .ephemeral, timeout: TimeInterval = 30,
        maxResponseBytes: Int = 4 * 1024 * 1024
    ) throws {
        let delegate = SessionDelegate(tls: try TLSChallengeHandler(options: tls))
        self.init(
            configuration: configuration, timeout: timeout, maxResponseBytes: maxResponseBytes, delegate: delegate)
    }
    #endif

    private init(
        configuration: URLSessionConfiguration, timeout: TimeInterval, maxResponseBytes: Int, delegate: SessionDelegate
    ) {
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        self.delegate = delegate
        #if canImport(FoundationNetworking)
        self.configuration = configuration
        #endif
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }
        urlRequest.httpBody = request.body
        let deadline = request.deadline(default: timeout)
        urlRequest.timeoutInterval = deadline
        #if canImport(FoundationNetworking)
        let outcome: PendingExchange.Outcome
        if LostAnswerRetry.applies(to: request.method) {
            outcome = await exchange(urlRequest, deadline: deadline, on: session, delegate)
        } else {
            let own = SessionDelegate()
            let session = URLSession(configuration: configuration, delegate: own, delegateQueue: nil)
            outcome = await exchange(urlRequest, deadline: deadline, on: session, own)
            session.finishTasksAndInvalidate()
        }
        let (data, response) = try outcome.get()
        #else
        let (data, response) = try await exchange(urlRequest, deadline: deadline, on: session, delegate).get()
        #endif
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return HTTPResponse(statusCode: response.statusCode, headers: headers, body: data, url: request.url)
    }

    /// Runs one data task. The answer comes from whichever happens first: the task's completion (through the
    /// delegate), the deadline, or cancellation. The deadline does not rely on URLSession calling back, because
    /// on Linux it sometimes never does.
    private func exchange(
        _ request: URLRequest, deadline: TimeInterval, on session: URLSession, _ delegate: SessionDelegate
    ) async -> PendingExchange.Outcome {
        let pending = PendingExchange(deadline: deadline, limit: maxResponseBytes)
        let task = session.dataTask(with: request)
        let identifier = task.taskIdentifier
        delegate.register(pending, for: identifier)
        defer { delegate.forget(identifier) }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<PendingExchange.Outcome, Never>) in
                pending.start(task, continuation: continuation)
                Task {
                    try? await Task.sleep(nanoseconds: UInt64(deadline * 1_000_000_000))
                    pending.finish(.failure(.timedOut(after: deadline)))
                }
                task.resume()
            }
        } onCancel: {
            pending.finish(.failure(.cancelled))
        }
    }
}

/// The session's delegate: hands each task's response and body to its exchange, hands 3xx responses to the
/// caller instead of following them, and on Apple platforms answers TLS challenges with the transport's
/// `TLSOptions`. An HTTP authentication challenge (Linux) ends the exchange with the answer that carried it.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// The exchanges in flight, by task: one entry per running `send`, removed when it returns.
    private let exchanges = LockedValue([Int: PendingExchange]())

    #if canImport(Security) && canImport(Darwin)
    let tls: TLSChallengeHandler?

    init(tls: TLSChallengeHandler? = nil) {
        self.tls = tls
    }
    #endif

    func register(_ exchange: PendingExchange, for task: Int) {
        exchanges.withLock { $0[task] = exchange }
    }

    func forget(_ task: Int) {
        _ = exchanges.withLock { $0.removeValue(forKey: task) }
    }

    private func exchange(_ task: URLSessionTask) -> PendingExchange? {
        let identifier = task.taskIdentifier
        return exchanges.withLock { $0[identifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        exchange(dataTask)?.received(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(dataTask)?.append(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        exchange(task)?.completed(error)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(Security) && canImport(Darwin)
        // Apple's URLSession delivers an unanswered HTTP authentication challenge's 401 by itself.
        guard let tls else { return completionHandler(.performDefaultHandling, nil) }
        let (disposition, credential) = tls.answer(challenge)
        completionHandler(disposition, credential)
        #else
        // FoundationNetworking challenges only after the whole answer arrived, and would wait for a credential
        // without end: the answer is what the caller gets.
        exchange(task)?.challenged(challenge.failureResponse)
        completionHandler(.cancelAuthenticationChallenge, nil)
        #endif
    }
}

/// One exchange: the response and the body as they arrive, and the continuation, resumed exactly once by whoever
/// finishes first (the task's completion, the deadline, cancellation, a body over the limit); the others are
/// ignored and the data task is cancelled.
///
/// Unchecked, with `NSLock` rather than the package's `LockedValue` (whose value must be `Sendable`): its state
/// holds a `URLSessionTask` and an `HTTPURLResponse`, which swift-corelibs-foundation declares `Sendable` but
/// whose declarations in Apple's SDKs no compiler here can check. Every member is read and written under
/// `lock`, and the continuation is resumed outside it.
private final class PendingExchange: @unchecked Sendable {
    typealias Outcome = Result<(Data, HTTPURLResponse), TransportError>
    private let lock = NSLock()
    private let deadline: TimeInterval
    private let limit: Int
    private var task: URLSessionTask?
    private var continuation: CheckedContinuation<Outcome, Never>?
    private var early: Outcome?
    private var done = false
    private var response: HTTPURLResponse?
    private var body = Data()

    init(deadline: TimeInterval, limit: Int) {
        self.deadline = deadline
        self.limit = limit
    }

    func start(_ task: URLSessionTask, continuation: CheckedContinuation<Outcome, Never>) {
        lock.lock()
        if let early {
            done = true
            lock.unlock()
            task.cancel()
            continuation.resume(returning: early)
            return
        }
        self.task = task
        self.continuation = continuation
        lock.unlock()
    }

    func received(_ response: URLResponse) {
        lock.lock()
        self.response = response as? HTTPURLResponse
        // A response after another (FoundationNetworking's retry with a credential) starts a new body.
        body.removeAll()
        lock.unlock()
    }

    func append(_ data: Data) {
        lock.lock()
        body.append(data)
        let tooLarge = body.count > limit
        if tooLarge { body.removeAll() }
        lock.unlock()
        if tooLarge { finish(.failure(.responseTooLarge(limit: limit))) }
    }

    /// The answer that carried a declined HTTP authentication challenge: complete, with the body so far.
    func challenged(_ failure: URLResponse?) {
        lock.lock()
        let response = self.response ?? failure as? HTTPURLResponse
        let body = self.body
        lock.unlock()
        guard let response else { return finish(.failure(.invalidResponse("not an HTTP response"))) }
        finish(.success((body, response)))
    }

    func completed(_ error: (any Error)?) {
        lock.lock()
        let response = self.response
        let body = self.body
        lock.unlock()
        if let error { return finish(.failure(Self.failure(error, deadline: deadline))) }
        guard let response else { return finish(.failure(.invalidResponse("not an HTTP response"))) }
        finish(.success((body, response)))
    }

    /// What a task's error says about how far the request got (`TransportError`'s cases), by URL error code:
    /// the same codes on Apple platforms and in FoundationNetworking, which maps curl's errors onto them.
    static func failure(_ error: any Error, deadline: TimeInterval) -> TransportError {
        let nsError = error as NSError
        let detail = "\(error.localizedDescription) (\(nsError.domain) \(nsError.code))"
        guard nsError.domain == NSURLErrorDomain else { return .answerLost(detail) }
        switch URLError.Code(rawValue: nsError.code) {
        case .timedOut: return .timedOut(after: deadline)
        case .cancelled: return .cancelled
        case .cannotFindHost, .dnsLookupFailed, .cannotConnectToHost, .notConnectedToInternet,
            .internationalRoamingOff, .callIsActive, .dataNotAllowed, .secureConnectionFailed,
            .serverCertificateHasBadDate, .serverCertificateUntrusted, .serverCertificateHasUnknownRoot,
            .serverCertificateNotYetValid, .clientCertificateRejected, .clientCertificateRequired,
            .appTransportSecurityRequiresSecureConnection, .badURL, .unsupportedURL, .cannotLoadFromNetwork:
            return .couldNotConnect(detail)
        case .badServerResponse, .cannotParseResponse:
            return .invalidResponse(detail)
        default:
            // The connection was lost (-1005), the answer ended early or came back empty: the request left.
            return .answerLost(detail)
        }
    }

    func finish(_ outcome: Outcome) {
        lock.lock()
        guard !done else { return lock.unlock() }
        guard let continuation else {
            // Cancelled before the task started: `start` delivers this.
            if early == nil { early = outcome }
            lock.unlock()
            return
        }
        done = true
        self.continuation = nil
        let task = self.task
        self.task = nil
        body = Data()
        lock.unlock()
        if case .failure = outcome { task?.cancel() }
        continuation.resume(returning: outcome)
    }
}
