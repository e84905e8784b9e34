/// The "Examples:" section every command's `--help` ends with: real invocations, runnable against
/// `haapi serve` on its default port.
enum HelpExamples {
    static func discussion(_ text: String = "", _ examples: String...) -> String {
        let section = "Examples:\n" + examples.map { "  $ " + $0 }.joined(separator: "\n")
        return text.isEmpty ? section : text + "\n\n" + section
    }
}
