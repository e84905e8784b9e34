/// Where a flow is in its login: the index of a step in the login's sequence and, for each choice the flow
/// entered, the option taken and the index of the step in that option (`[2, 1, 0]`: the third step is a
/// choice, the second option was taken, and the flow is at its first step). It points at an authenticator, or at
/// a choice the user has not made yet.
struct LoginCursor: Hashable, Sendable, CustomStringConvertible {
    fileprivate(set) var path: [Int]

    static let start = LoginCursor(path: [0])

    var description: String { path.map(String.init).joined(separator: ".") }
}

extension LoginConfiguration {
    /// The step at `cursor`; nil past the end of its sequence.
    func step(at cursor: LoginCursor) -> LoginStep? {
        guard let sequence = sequence(of: cursor.path), let index = cursor.path.last,
            sequence.indices.contains(index)
        else { return nil }
        return sequence[index]
    }

    /// The sequence the last index of `path` counts in.
    private func sequence(of path: [Int]) -> [LoginStep]? {
        var sequence = steps
        var level = 0
        while level + 2 < path.count {
            guard sequence.indices.contains(path[level]), case .choice(let options) = sequence[path[level]],
                options.indices.contains(path[level + 1])
            else { return nil }
            sequence = options[path[level + 1]]
            level += 2
        }
        return sequence
    }

    /// The cursor after the step at `cursor` is done: the next step of its sequence, or, at the end of a
    /// choice's option, the step after that choice. Nil when the login is complete.
    func advanced(_ cursor: LoginCursor) -> LoginCursor? {
        var path = cursor.path
        while let last = path.last {
            path[path.count - 1] = last + 1
            if let sequence = sequence(of: path), path[path.count - 1] < sequence.count {
                return LoginCursor(path: path)
            }
            guard path.count > 1 else { return nil }
            path.removeLast(2)
        }
        return nil
    }

    /// The cursor at the choice `cursor` points at, moved into the option that `authenticator` starts (through
    /// the options' own leading choices); nil when no option starts with it.
    func entering(_ cursor: LoginCursor, authenticator: String) -> LoginCursor? {
        guard case .choice(let options)? = step(at: cursor) else { return nil }
        for (index, option) in options.enumerated() where LoginStep.entries(of: option).contains(authenticator) {
            let inner = LoginCursor(path: cursor.path + [index, 0])
            if case .authenticator(authenticator)? = step(at: inner) { return inner }
            return entering(inner, authenticator: authenticator)
        }
        return nil
    }

    /// Where "choose another way" goes from `cursor`: the choice whose option the flow has entered without
    /// finishing any step of it yet, else the cursor itself. Going back never undoes a finished step.
    func choicePoint(_ cursor: LoginCursor) -> LoginCursor {
        var path = cursor.path
        while path.count > 1, path.last == 0 { path.removeLast(2) }
        return LoginCursor(path: path)
    }
}
