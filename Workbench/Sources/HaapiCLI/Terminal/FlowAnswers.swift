import Foundation
@_spi(Tooling) import HaapiUI

/// Scripted answers for an unattended run (`--answers FILE`): a JSON array, one object per step that
/// needs input, used in order.
///
/// - `{"choose": "password"}`: an authenticator or an action, by href suffix (the authenticator id), type, title
///   or 1-based number;
/// - `{"fields": {"userName": "demouser", "password": "Password1"}, "action": "Sign in"}`: fill a form
///   (`action` picks among several forms or buttons, as `choose` does; `{"action": "Accept"}` for consent);
/// - `{"resumeUrl": "app://haapi?_resume_nonce=…"}`: the URL an external browser came back to;
/// - `{"browserLogin": {"userName": "…", "password": "…"}}`: let the demo sign in through the browser page;
/// - `{"approve": true}` / `{"cancel": true}`: during polling, approve (demo) or give up.
/// Waits, app launches (BankID, Encap) and passkeys take no answer. README's "Scripted logins" has the table.
@MainActor
final class FlowAnswers {
    private var remaining: [JSONObject]

    init(_ answers: [JSONObject]) {
        remaining = answers
    }

    convenience init(file: String) throws {
        let value = try JSONParser().parse(try StandardStreams.read(file, what: "answers file"))
        guard let array = value.arrayValue else { throw FlowAnswersError.notAnArray }
        var answers: [JSONObject] = []
        for (index, item) in array.enumerated() {
            guard let object = item.objectValue else { throw FlowAnswersError.notAnObject(index) }
            answers.append(object)
        }
        self.init(answers)
    }

    var isEmpty: Bool { remaining.isEmpty }

    func next() -> JSONObject? {
        remaining.isEmpty ? nil : remaining.removeFirst()
    }

    /// Takes the next answer only if it is of this kind (so a polling step does not consume a form's answer).
    func next(ifHas key: String) -> JSONObject? {
        guard let first = remaining.first, first[key] != nil else { return nil }
        return remaining.removeFirst()
    }
}

enum FlowAnswersError: Error, CustomStringConvertible {
    case notAnArray
    case notAnObject(Int)

    var description: String {
        switch self {
        case .notAnArray: "the answers file must hold a JSON array"
        case .notAnObject(let index): "answer \(index + 1) is not a JSON object"
        }
    }
}

/// Matches a user's or a script's choice against numbered items.
enum Choice {
    /// A number in range, or a key that is the whole answer (or an href's last segment). Nothing else: a
    /// substring would quietly pick something the user did not mean ("e" would be the first item with an e).
    static func pick<Item>(_ wanted: String, from items: [Item], keys: (Item) -> [String]) -> Item? {
        let text = wanted.trimmingCharacters(in: .whitespaces).lowercased()
        if let number = Int(text) { return items.indices.contains(number - 1) ? items[number - 1] : nil }
        guard !text.isEmpty else { return nil }
        return items.first { keys($0).contains { $0.lowercased().hasSuffix("/" + text) || $0.lowercased() == text } }
    }
}
