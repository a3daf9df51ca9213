use std::process::ExitCode;

fn main() -> ExitCode {
    kubesift::cli::main()
}
