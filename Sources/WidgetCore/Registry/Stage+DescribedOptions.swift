extension Stage where Options: DescribedOptions {
    /// The keys whose description allows secrets (``KeyDescription/allowsSecrets``).
    public static var secretOptions: [any CodingKey & Sendable] { Options.secretKeys }
}
