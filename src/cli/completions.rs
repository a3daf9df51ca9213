//! `kubesift completions SHELL`: a completion script generated from the clap definitions
//! (clap_complete); `get`'s TYPE completes from the built-in kind table.

use std::collections::BTreeSet;
use std::io::Write;
use std::process::ExitCode;

use clap::builder::PossibleValuesParser;
use clap::{Args, CommandFactory};
use clap_complete::Shell;

use crate::kinds::KindRegistry;

/// Arguments of `kubesift completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to write the script for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
}

/// Writes the completion script for the shell to stdout.
pub fn run(args: CompletionsArgs) -> ExitCode {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command(), "kubesift", &mut script);
    if args.shell == Shell::Fish {
        // clap_complete's fish script completes options only, not positionals' values.
        script.extend_from_slice(fish_types().as_bytes());
    }
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = out.write_all(&script);
    let _ = out.flush();
    ExitCode::SUCCESS
}

/// The command line as the completion script sees it: `get`'s TYPE offers the built-in
/// type names. Only the script sees them as a closed list: `get` itself still accepts a
/// CRD's kinds, `TYPE/NAME` and `TYPE,TYPE`.
pub fn command() -> clap::Command {
    let names = type_names();
    super::Cli::command().mut_subcommand("get", |get| {
        get.mut_arg("resources", |arg| {
            arg.value_parser(PossibleValuesParser::new(names))
        })
    })
}

/// fish: `get`'s TYPE from the kind table (`-f`: no file names there; files come with `-f`).
fn fish_types() -> String {
    format!(
        "complete -c kubesift -n \"__fish_kubesift_using_subcommand get\" -f -a \"{}\"\n",
        type_names().join(" ")
    )
}

/// Every name `kubesift get` takes for a built-in kind: plural, singular, short names, and
/// categories (`all`); sorted, each once.
pub fn type_names() -> Vec<String> {
    let mut names = BTreeSet::new();
    for kind in KindRegistry::builtin().iter() {
        names.insert(kind.plural.to_string());
        names.insert(kind.singular.to_string());
        names.extend(kind.short_names.iter().map(|s| s.to_string()));
        names.extend(kind.categories.iter().map(|s| s.to_string()));
    }
    names.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_come_from_the_kind_table() {
        let names = type_names();
        for name in ["deployment", "deployments", "deploy", "po", "all", "crd"] {
            assert!(names.iter().any(|n| n == name), "{name} missing");
        }
        assert!(names.windows(2).all(|w| w[0] < w[1]), "sorted, each once");
    }

    #[test]
    fn only_the_script_sees_a_closed_list() {
        let get = command();
        let get = get.find_subcommand("get").expect("get");
        let types = get
            .get_arguments()
            .find(|a| a.get_id() == "resources")
            .expect("TYPE");
        assert!(types
            .get_possible_values()
            .iter()
            .any(|v| v.get_name() == "deployments"));
        let real = super::super::Cli::command();
        let real = real.find_subcommand("get").expect("get");
        let real_types = real
            .get_arguments()
            .find(|a| a.get_id() == "resources")
            .expect("TYPE");
        assert!(real_types.get_possible_values().is_empty());
    }
}
