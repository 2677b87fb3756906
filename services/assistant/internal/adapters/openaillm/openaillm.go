// Package openaillm answers chat messages with any OpenAI-compatible chat-completions endpoint
// (OpenAI, Ollama, vLLM, llama.cpp server) through the official Go SDK. The model fetches the
// caller's figures by calling the assistant's tools instead of guessing them.
package openaillm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/services/assistant/internal/app"
	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

// Config selects the endpoint and model. An empty BaseURL means no language model: the offline
// advisor answers.
type Config struct {
	BaseURL    string        `env:"ASSISTANT_LLM_BASE_URL"`
	Model      string        `env:"ASSISTANT_LLM_MODEL" envDefault:"gpt-4o-mini"`
	APIKey     string        `env:"ASSISTANT_LLM_API_KEY"`
	Timeout    time.Duration `env:"ASSISTANT_LLM_TIMEOUT" envDefault:"30s"`
	MaxRetries int           `env:"ASSISTANT_LLM_MAX_RETRIES" envDefault:"1"`
	// MaxToolRounds bounds how many times one turn may go back to the model with tool results.
	MaxToolRounds int `env:"ASSISTANT_LLM_MAX_TOOL_ROUNDS" envDefault:"4"`
}

// Bounds on what one turn may make the tools do, whatever the model asks for: at most
// MaxToolCallsPerReply calls of one reply run (the rest are answered with an error result, which
// the protocol needs for every call id), and at most maxToolRounds replies with tool calls, so a
// turn runs at most 8 × 8 = 64 tool calls and with the default 4 rounds 32.
const (
	MaxToolCallsPerReply = 8
	maxToolRounds        = 8
)

// Enabled reports whether a model endpoint is configured.
func (c Config) Enabled() bool { return c.BaseURL != "" }

// Validate reports a config that cannot work.
func (c Config) Validate() error {
	if !c.Enabled() {
		return nil
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("ASSISTANT_LLM_BASE_URL %q must be an absolute http(s) URL such as http://127.0.0.1:11434/v1", c.BaseURL)
	}
	if strings.TrimSpace(c.Model) == "" {
		return errors.New("ASSISTANT_LLM_MODEL must not be empty when ASSISTANT_LLM_BASE_URL is set")
	}
	if c.Timeout <= 0 || c.MaxRetries < 0 || c.MaxRetries > 5 || c.MaxToolRounds < 1 || c.MaxToolRounds > maxToolRounds {
		return fmt.Errorf("ASSISTANT_LLM_TIMEOUT must be positive, ASSISTANT_LLM_MAX_RETRIES 0-5 and ASSISTANT_LLM_MAX_TOOL_ROUNDS 1-%d", maxToolRounds)
	}
	return nil
}

// Model implements app.Model.
type Model struct {
	client openai.Client
	cfg    Config
}

func New(cfg Config) *Model {
	key := cfg.APIKey
	if key == "" {
		key = "none" // local servers ignore it, but the SDK insists on a header
	}
	return &Model{cfg: cfg, client: openai.NewClient(
		option.WithBaseURL(strings.TrimSuffix(cfg.BaseURL, "/")+"/"),
		option.WithAPIKey(key),
		option.WithMaxRetries(cfg.MaxRetries),
	)}
}

const systemPrompt = `You are the growth assistant of a small-business platform. Answer the owner briefly and
concretely. Never invent figures: call the tools to get the account's leads, health score, plan usage and
clients at risk, and quote the numbers they return. Searching for leads spends a lead search of the owner's
plan and adds them to the owner's leads sheet: search only when the owner asks for it. When they only tell you
about their business, remember it and offer the search instead. If a tool reports an error, say what could not
be fetched.`

// memoryPrompt tells the model what the owner said earlier in the session and whether this
// message asks for an action (the tools enforce it either way).
func memoryPrompt(c app.Conversation) string {
	var b strings.Builder
	p := c.State.Profile.Merge(c.Turn.Facts)
	for _, f := range [][2]string{{"name", p.Name}, {"business name", p.Business}, {"industry", p.Industry}, {"city", p.City}, {"goals", strings.Join(p.Goals, "; ")}} {
		if f[1] != "" {
			fmt.Fprintf(&b, "\nThe owner's %s (they told you): %s.", f[0], f[1])
		}
	}
	switch {
	case c.Turn.Confirmed != nil:
		fmt.Fprintf(&b, "\nThe owner accepted your offer: search for %s leads", c.Turn.Confirmed.Slots.Vertical)
		if l := c.Turn.Confirmed.Slots.Location; l != "" {
			fmt.Fprintf(&b, " in %s", l)
		}
		b.WriteString(", exactly that.")
	case !c.Turn.Request:
		b.WriteString("\nThe owner's latest message does not ask for a lead search: do not call find_leads; offer it if it would help.")
	}
	return b.String()
}

// CallsTools is true: the model fetches the caller's figures through the tools it is given.
func (m *Model) CallsTools() bool { return true }

func (m *Model) Reply(ctx context.Context, c app.Conversation, tools app.Tools) (app.Answer, error) {
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()

	system := systemPrompt
	if c.Plan != "" {
		system += "\nThe owner's plan: " + c.Plan + "."
	}
	if len(c.Context) > 0 {
		system += "\nContext from the page the owner is on (JSON): " + string(c.Context)
	}
	system += memoryPrompt(c)
	msgs := []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(system)}
	for _, h := range c.History {
		if h.Role == domain.RoleAssistant {
			msgs = append(msgs, openai.AssistantMessage(h.Content))
		} else {
			msgs = append(msgs, openai.UserMessage(h.Content))
		}
	}
	msgs = append(msgs, openai.UserMessage(c.Message))

	definitions := toolDefinitions(tools)
	total := 0
	for round := 0; ; round++ {
		params := openai.ChatCompletionNewParams{Model: m.cfg.Model, Messages: msgs}
		if round < m.cfg.MaxToolRounds {
			params.Tools = definitions
		}
		comp, err := m.client.Chat.Completions.New(ctx, params)
		if err != nil {
			return app.Answer{}, m.failure(ctx, err)
		}
		total += int(comp.Usage.TotalTokens)
		if len(comp.Choices) == 0 {
			return app.Answer{}, apperr.Unavailable("model_unavailable", "the language model returned no answer")
		}
		msg := comp.Choices[0].Message
		if len(msg.ToolCalls) == 0 || round >= m.cfg.MaxToolRounds {
			if strings.TrimSpace(msg.Content) == "" {
				return app.Answer{}, apperr.Unavailable("model_unavailable", "the language model returned an empty answer")
			}
			// The model quotes no figures the chat could keep: the last ones stand for a "why?".
			return app.Answer{Text: strings.TrimSpace(msg.Content), Tokens: total, Facts: c.State.Facts, Topic: domain.IntentConversation}, nil
		}
		msgs = append(msgs, msg.ToParam())
		for i, call := range msg.ToolCalls {
			result := skippedCall
			if i < MaxToolCallsPerReply {
				result = runTool(ctx, tools, call.Function.Name, call.Function.Arguments)
			}
			msgs = append(msgs, openai.ToolMessage(result, call.ID))
		}
	}
}

// skippedCall answers a tool call past MaxToolCallsPerReply.
var skippedCall = toolJSON(nil, fmt.Errorf("not run: at most %d tool calls per reply; ask for fewer at a time", MaxToolCallsPerReply))

// failure maps a model error to the envelope: 504 when it ran out of time, 503 otherwise.
func (m *Model) failure(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("language model did not answer within %s: %w", m.cfg.Timeout, context.DeadlineExceeded)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		slog.WarnContext(ctx, "language model refused", "status", apiErr.StatusCode, "error", apiErr.Message)
	}
	return apperr.Unavailable("model_unavailable", "the language model is unavailable; try again shortly").Wrap(err)
}

// toolDefinitions are the caller's actions of the registry as the chat-completions protocol
// describes tools.
func toolDefinitions(tools app.Tools) []openai.ChatCompletionToolUnionParam {
	actions := app.ActionsFor(tools)
	out := make([]openai.ChatCompletionToolUnionParam, 0, len(actions))
	for _, a := range actions {
		out = append(out, openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
			Name: a.Name, Description: openai.String(a.Description), Parameters: openai.FunctionParameters(a.Parameters),
		}))
	}
	return out
}

// runTool executes one tool call for the caller and returns its result or error as JSON text for
// the model. Arguments only shape the query; the account is fixed by the caller's credentials,
// and the chat's tools refuse a side-effecting call the owner did not ask for.
func runTool(ctx context.Context, tools app.Tools, name, arguments string) string {
	return toolJSON(app.RunAction(ctx, tools, name, arguments))
}

func toolJSON(v any, err error) string {
	if err != nil {
		raw, _ := json.Marshal(map[string]string{"error": err.Error()})
		return string(raw)
	}
	raw, mErr := json.Marshal(v)
	if mErr != nil {
		return `{"error":"result could not be encoded"}`
	}
	return string(raw)
}
