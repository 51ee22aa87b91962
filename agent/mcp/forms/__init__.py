"""Forms a server asks the person to fill (elicitation): schemas, answers, one server's forms."""
