//! `kubesift man`: the manual page (roff), generated from the clap definitions (clap_mangen),
//! with every subcommand's options in one page, plus what clap does not know: standard
//! input, the selector-bar grammar and the UI's keys (the bundled `assets/keymap.toml`).

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Args, CommandFactory};
use clap_mangen::roff::{bold, italic, roman, Inline, Roff};
use clap_mangen::Man;

use crate::app::Keymap;

/// Arguments of `kubesift man` (none: `kubesift man | man -l -` reads it).
#[derive(Debug, Args)]
pub struct ManArgs {}

/// Writes the manual page to stdout.
pub fn run(_args: ManArgs) -> ExitCode {
    let page = match render() {
        Ok(page) => page,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let mut out = io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = out.write_all(&page);
    let _ = out.flush();
    ExitCode::SUCCESS
}

/// The selector bar's grammar (as `crate::query` documents it).
const GRAMMAR: &[&str] = &[
    "query   := terms [ \"|\" \"by\" group ]",
    "terms   := term { \",\" term }        commas inside ( … ) belong to the term",
    "term    := label requirement        k=v  k==v  k!=v  k in (a,b)  k notin (a,b)  k  !k  k>1  k<9",
    "         | field requirement        metadata.name=x  metadata.namespace!=y  spec.nodeName=n  status.phase=Running",
    "         | \".\" path op value        .spec.replicas=3  .spec.template.spec.containers[*].image=nginx",
    "                                      .metadata.annotations['a.b/c']!=x  (kubectl JSONPath: [N], [*], ['key'])",
    "         | \"~\" text                 fuzzy match on the name",
    "         | (\"uses\" | \"usedby\") \"(\" TYPE \"/\" [NAMESPACE \"/\"] NAME \")\"   what uses / is used by that object",
    "group   := \"namespace\" | \"kind\" | \"owner\" | referenced kind (serviceaccount, configmap, secret, pvc …) | label-key",
];

/// The keymap's modes, in the order the help overlay lists them.
const MODES: &[&str] = &[
    "table", "bar", "tree", "detail", "problems", "picker", "help", "global",
];

/// The whole page.
pub fn render() -> io::Result<Vec<u8>> {
    // The NAME line reads `kubesift \- ABOUT`: the about without its leading `kubesift:`.
    let mut cmd = super::Cli::command()
        .about("browse a folder of Kubernetes manifests offline, like kubectl get");
    cmd.build();
    let man = Man::new(cmd.clone());
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    let mut roff = Roff::new();
    commands(&mut roff, &mut cmd);
    standard_input(&mut roff);
    selector_bar(&mut roff);
    keys(&mut roff).map_err(io::Error::other)?;
    roff.to_writer(&mut out)?;
    man.render_version_section(&mut out)?;
    Ok(out)
}

/// COMMANDS: each subcommand's usage, description and options.
fn commands(roff: &mut Roff, cmd: &mut clap::Command) {
    roff.control("SH", ["COMMANDS"]);
    for sub in cmd.get_subcommands_mut().filter(|s| !s.is_hide_set()) {
        let usage = sub.render_usage().to_string();
        let usage = usage.strip_prefix("Usage: ").unwrap_or(&usage);
        roff.control("SS", [usage]);
        let about = sub.get_long_about().or(sub.get_about());
        for paragraph in about
            .map(|a| a.to_string())
            .unwrap_or_default()
            .split("\n\n")
        {
            roff.control("PP", [])
                .text([roman(paragraph.replace('\n', " "))]);
        }
        for arg in sub.get_arguments().filter(|a| !a.is_hide_set()) {
            roff.control("TP", []).text(arg_label(arg));
            roff.text([roman(arg_help(arg))]);
        }
    }
}

/// `-f, --filename PATH`, or a positional's value names.
fn arg_label(arg: &clap::Arg) -> Vec<Inline> {
    let value = arg
        .get_value_names()
        .map(|names| {
            names
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|| arg.get_id().to_string().to_uppercase());
    if arg.is_positional() {
        return vec![italic(value)];
    }
    let mut label = Vec::new();
    if let Some(short) = arg.get_short() {
        label.push(bold(format!("-{short}")));
    }
    if let Some(long) = arg.get_long() {
        if !label.is_empty() {
            label.push(roman(", "));
        }
        label.push(bold(format!("--{long}")));
    }
    if arg.get_action().takes_values() {
        label.push(roman(" "));
        label.push(italic(value));
    }
    label
}

/// The help text, with the possible values and the default.
fn arg_help(arg: &clap::Arg) -> String {
    let mut help = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|h| h.to_string().replace('\n', " "))
        .unwrap_or_default();
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| v.get_name().to_owned())
        .collect();
    if !values.is_empty() && arg.get_action().takes_values() {
        help.push_str(&format!(" [possible values: {}]", values.join(", ")));
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if !defaults.is_empty() && arg.get_action().takes_values() {
        help.push_str(&format!(" [default: {}]", defaults.join(",")));
    }
    help
}

/// STANDARD INPUT: `-` as a path.
fn standard_input(roff: &mut Roff) {
    roff.control("SH", ["STANDARD INPUT"]);
    roff.text([
        roman("A path "),
        bold("-"),
        roman(" reads standard input, as "),
        bold("kubectl -f -"),
        roman(" does: "),
        bold("kubectl get deploy,svc -A -o yaml | kubesift -"),
        roman(" opens the UI on a live cluster's objects, with the keys read from the terminal. Its objects and messages name the source "),
        bold("-:LINE"),
        roman(". It is read once, to its end, and never watched; it may be given beside files and directories, which are watched as usual. "),
        bold("--max-file-size"),
        roman(" applies to it."),
    ]);
}

/// SELECTOR BAR: the grammar of the UI's filter line.
fn selector_bar(roff: &mut Roff) {
    roff.control("SH", ["SELECTOR BAR"]);
    roff.text([roman(
        "The UI's selector bar (/) filters and groups the table on every keystroke:",
    )]);
    roff.control("PP", []).control("nf", []);
    for line in GRAMMAR {
        roff.text([roman(*line)]);
    }
    roff.control("fi", []).control("PP", []);
    roff.text([roman(
        "All label terms together are parsed as one Kubernetes label selector, so the bar selects exactly what kubesift get -l selects; an invalid text shows upstream's error with a caret and keeps the last valid result. Tab completes label keys, then values; Up and Down walk the history.",
    )]);
}

/// KEYS: the bundled keymap, mode by mode.
fn keys(roff: &mut Roff) -> Result<(), String> {
    let keymap = Keymap::load(None)?;
    roff.control("SH", ["KEYS"]);
    roff.text([roman(
        "The bundled key bindings, per mode (global ones apply in every mode that does not bind the key itself). A file kubesift/keymap.toml in the configuration directory ($XDG_CONFIG_HOME) overrides entries, in the same format.",
    )]);
    for mode in MODES {
        roff.control("SS", [*mode]);
        for (keys, description) in keymap.bindings(mode) {
            roff.control("TP", []).text([bold(keys)]);
            roff.text([roman(description)]);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_has_every_section_and_every_mode() {
        let page = String::from_utf8(render().expect("render")).expect("utf-8");
        for section in [
            ".SH NAME",
            ".SH SYNOPSIS",
            ".SH COMMANDS",
            ".SH \"STANDARD INPUT\"",
            ".SH \"SELECTOR BAR\"",
            ".SH KEYS",
        ] {
            assert!(page.contains(section), "{section} missing");
        }
        for mode in MODES {
            assert!(page.contains(&format!(".SS {mode}\n")), "{mode} missing");
        }
    }
}
