"""Modal screens: dialogs, pickers and help."""
