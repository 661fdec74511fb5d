// Package index is the store's search and index engine: the contact search (postings of terms,
// ranks, the plans that pick between walking the display order and ranking), the split contact
// indexes with their recent parts, the contacts list's selections (its kept sets, and a search's
// every match as one more set), the import buffers and the message-word index of the inbox
// search. It knows buckets and bytes, never an entity: the store names the buckets (Layout) and
// reads its own records for it (TextFunc, Members).
//
// What it promises:
//   - Bounded work per query: no search reads every record; a query's postings, record reads
//     and phone-index passes are capped by Bounds, whatever its text.
//   - Exact answers: a contact is returned only when every word matches it, in exact display
//     order (first name, last name, id); a list's search keeps every match and nothing else; a
//     kept set answers exactly as a fresh build would.
//   - Approximate only in cost: the plan is chosen from samples and estimates, never the result.
package index
