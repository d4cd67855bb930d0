// Package reports renders study outcomes: terminal tables, CSV and JSON,
// plots, Gantt charts, memory timelines, Chrome traces and an HTML report.
// It knows how to show results, not how they were made.
package reports
