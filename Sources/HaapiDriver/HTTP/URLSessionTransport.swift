// Apple platforms only. On Linux the client modules use AsyncHTTPClient, and leaving FoundationNetworking out
// keeps libcurl and its dependencies out of every Linux binary built on them (docs/BENCHMARKS.md, memory).
#if !HAAPI_ASYNC_HTTP_CLIENT
import Foundation

/// `HTTPTransport` over URLSession. Redirects are not followed: a HAAPI server answers with steps, and a
/// 3xx must reach the caller as it is. Every exchange has a deadline even if the session never calls back.
/// On Apple platforms `init(tls:…)` adds key pinning, private trust roots and a client identity (mTLS)
/// through the session's delegate.
public final class URLSessionTransport: HTTPTransport, Sendable {
    private let session: URLSession
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
        let (data, response) = try await Self.exchange(session, urlRequest, deadline: deadline).get()
        guard data.count <= maxResponseBytes else { throw .responseTooLarge(limit: maxResponseBytes) }
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return HTTPResponse(statusCode: response.statusCode, headers: headers, body: data, url: request.url)
    }

    /// Runs one data task. The answer comes from whichever happens first: the task's completion, the
    /// deadline, or cancellation. The deadline does not rely on URLSession calling back, because on Linux
    /// it sometimes never does.
    private static func exchange(
        _ session: URLSession, _ request: URLRequest, deadline: TimeInterval
    )
        async -> Result<(Data, HTTPURLResponse), TransportError>
    {
        let pending = PendingExchange()
        return await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<(Data, HTTPURLResponse), TransportError>, Never>) in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        let code = (error as NSError).code
                        if code == NSURLErrorTimedOut { return pending.finish(.failure(.timedOut(after: deadline))) }
                        if code == NSURLErrorCancelled { return pending.finish(.failure(.cancelled)) }
                        return pending.finish(.failure(.connectionFailed(error.localizedDescription)))
                    }
                    guard let http = response as? HTTPURLResponse else {
                        return pending.finish(.failure(.invalidResponse("not an HTTP response")))
                    }
                    pending.finish(.success((data ?? Data(), http)))
                }
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

/// Hands 3xx responses to the caller instead of following them, and on Apple platforms answers TLS
/// challenges with the transport's `TLSOptions`.
private final class SessionDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    #if canImport(Security) && canImport(Darwin)
    let tls: TLSChallengeHandler?

    init(tls: TLSChallengeHandler? = nil) {
        self.tls = tls
    }
    #endif

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    #if canImport(Security) && canImport(Darwin)
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let tls else { return completionHandler(.performDefaultHandling, nil) }
        let (disposition, credential) = tls.answer(challenge)
        completionHandler(disposition, credential)
    }
    #endif
}

/// One exchange's continuation, resumed exactly once by whoever finishes first; the others are ignored
/// and the data task is cancelled.
///
/// Unchecked, with `NSLock` rather than the package's `LockedValue` (whose value must be `Sendable`): its state
/// holds a `URLSessionTask` and an `HTTPURLResponse`, which swift-corelibs-foundation declares `Sendable` but
/// whose declarations in Apple's SDKs no compiler here can check. Every member is read and written under
/// `lock`, and the continuation is resumed outside it.
private final class PendingExchange: @unchecked Sendable {
    typealias Outcome = Result<(Data, HTTPURLResponse), TransportError>
    private let lock = NSLock()
    private var task: URLSessionTask?
    private var continuation: CheckedContinuation<Outcome, Never>?
    private var early: Outcome?
    private var done = false

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
        lock.unlock()
        if case .failure = outcome { task?.cancel() }
        continuation.resume(returning: outcome)
    }
}
#endif
