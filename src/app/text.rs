//! Text a view shows, decided in `app` (so its length is known to `update`) and styled by
//! `ui`: pieces tagged with a [`Tone`] the theme turns into a style.

/// What a piece of text is, for the theme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Plain,
    Title,
    Key,
    Dim,
    Warning,
    Error,
}

/// One line of text, in toned pieces.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextLine(pub Vec<(Tone, String)>);

impl TextLine {
    /// A line in one tone.
    pub fn one(tone: Tone, text: impl Into<String>) -> TextLine {
        TextLine(vec![(tone, text.into())])
    }

    /// The text without its tones.
    pub fn plain(&self) -> String {
        self.0.iter().map(|(_, t)| t.as_str()).collect()
    }

    /// A line of pieces.
    pub fn of<const N: usize>(pieces: [(Tone, String); N]) -> TextLine {
        TextLine(pieces.into())
    }
}

/// Screen rows a line of `chars` characters takes when wrapped at `width` (at least one).
pub fn rows_of(chars: usize, width: usize) -> usize {
    chars.div_ceil(width.max(1)).max(1)
}
