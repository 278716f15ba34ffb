//! Options a user picks by name (an input format, a selection policy, a Laplacian): each such enum lists its
//! values with their names and meanings once, here in the library, and the command line and the TUI build their
//! menus, help and parsing from that list instead of keeping copies of the enum.

/// An enum whose values are chosen by name.
pub trait Choice: Copy + PartialEq + Sized + 'static {
    /// Every value, in the order menus and help list them.
    const ALL: &'static [Self];

    /// The value's name, as typed.
    fn name(self) -> &'static str;

    /// What the value means, in one line.
    fn describe(self) -> &'static str;

    /// The value called `name` (ASCII case ignored).
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|value| value.name().eq_ignore_ascii_case(name))
    }

    /// Every value's name, in order.
    fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|value| value.name()).collect()
    }

    /// The value `steps` places after this one in [`Choice::ALL`], wrapping around (negative: before).
    fn cycled(self, steps: isize) -> Self {
        let count = Self::ALL.len() as isize;
        let at = Self::ALL
            .iter()
            .position(|&value| value == self)
            .map_or(0, |at| at as isize);
        Self::ALL[(at + steps).rem_euclid(count) as usize]
    }
}
