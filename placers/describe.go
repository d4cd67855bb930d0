package placers

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Describe writes e's name, description and declared options (type,
// default, valid range, doc, and the local resource a value names) as
// `placesim describe placer` and `placesim list placers --options` print
// them.
func Describe(w io.Writer, e Entry) error {
	if _, err := fmt.Fprintf(w, "%s: %s\n", e.Name, e.Description); err != nil {
		return err
	}
	if len(e.Options) == 0 {
		_, err := fmt.Fprintln(w, "  no options")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  option\ttype\tdefault\tvalid\tdoc")
	for _, o := range e.Options {
		def := o.Default
		switch {
		case o.Required:
			def = "(required)"
		case def == "":
			def = "(none)"
		}
		doc := o.Doc
		if o.Local() {
			doc += " [names " + o.Resource.withArticle() + " on this machine; refused in data files]"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", o.Name, o.Type, def, o.Range(), doc)
	}
	return tw.Flush()
}

// MarkdownTable renders every entry of r as a Markdown table (placer,
// description, options with their defaults), the table of placers in the
// README.
func MarkdownTable(r *Registry) string {
	var b strings.Builder
	b.WriteString("| placer | what it does | options (default) |\n|---|---|---|\n")
	for _, e := range r.Entries() {
		var opts []string
		for _, o := range e.Options {
			switch {
			case o.Required:
				opts = append(opts, fmt.Sprintf("`%s` (required)", o.Name))
			case o.Default == "":
				opts = append(opts, fmt.Sprintf("`%s`", o.Name))
			default:
				opts = append(opts, fmt.Sprintf("`%s`=%s", o.Name, o.Default))
			}
		}
		cell := strings.Join(opts, ", ")
		if cell == "" {
			cell = "none"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", e.Name, strings.ReplaceAll(e.Description, "|", "\\|"), cell)
	}
	return b.String()
}
