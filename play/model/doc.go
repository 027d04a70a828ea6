// Package model is `vesper play --model PROVIDER/MODEL`: a language model
// behind its provider's API as a play.Mover, under one versioned prompt
// template for every model (the arenas' methodology).
//
// Pure parts, tested with fixed inputs: the prompt (Prompt, Template, its
// Hash), the answer's final JSON block (Extract), the price table and cost
// (Prices.Cost) and the fault policy (classify, wait). The providers
// (openai.go, anthropic.go) are thin: they stream through the official SDKs
// and report text, thinking, usage and the stop reason; their own retries
// are off, because the answer time and Retry-After are honoured here, where
// a test can see them.
//
// The API key is held by the provider client and never formatted: every
// error message is built from the status and the body's own message, and
// passes through redact before it reaches a record.
package model
