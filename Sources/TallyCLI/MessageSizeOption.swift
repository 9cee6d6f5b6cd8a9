import ArgumentParser

/// `--max-message-bytes`, declared once: the largest request body the gateway accepts from a
/// client, and a worker from the gateway.
struct MessageSizeOption: ParsableArguments {
    @Option(name: .customLong("max-message-bytes"), help: EnvironmentDefaults.maximumMessageBytes.help("Largest request accepted, in bytes."))
    var bytes: Int = EnvironmentDefaults.maximumMessageBytes.value

    func validate() throws {
        guard bytes >= 1024 else { throw ValidationError("--max-message-bytes must be at least 1024") }
    }
}
