// Command goagent is the example order-status agent written on the
// OpenTelemetry Go SDK: its model (an offline stand-in) and its tool live
// inside it, and it reports them as GenAI spans, exported over OTLP/HTTP
// where the environment says (OTEL_EXPORTER_OTLP_ENDPOINT), children of
// the TRACEPARENT it was given. It reads the question on stdin and prints
// only its answer. Build it, and name it in the example's evalgate.yaml
// instead of the Node agent:
//
//	go build -o examples/otel-agent/goagent/goagent ./examples/otel-agent/goagent
//	# agent: {plain: [goagent/goagent], otel: true}
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

const model = "mock-orders-1"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "goagent:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx := context.Background()
	exp, err := otlptracehttp.New(ctx) // endpoint and protocol from the environment
	if err != nil {
		return err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))
	defer tp.Shutdown(ctx) // sends the spans before the process ends
	tracer := tp.Tracer("order-status-agent")

	ctx = propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": os.Getenv("TRACEPARENT")})
	question, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	a := &agent{tracer: tracer}
	fmt.Println(a.answer(ctx, string(question)))
	return nil
}

type agent struct{ tracer trace.Tracer }

type message struct {
	Role    string `json:"role"`
	Content string `json:"content,omitempty"`
}

type reply struct {
	Content  string
	ToolCall string // the order to look up
	In, Out  int
}

// answer runs the tool loop inside an invoke_agent span.
func (a *agent) answer(ctx context.Context, question string) string {
	ctx, span := a.tracer.Start(ctx, "invoke_agent order-status", trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "order-status")))
	defer span.End()
	messages := []message{{Role: "user", Content: question}}
	r := a.chat(ctx, messages)
	for turn := 0; r.ToolCall != "" && turn < 4; turn++ {
		result := a.tool(ctx, r.ToolCall)
		if _, failed := result["error"]; failed {
			span.AddEvent("error.handled")
		}
		b, _ := json.Marshal(result)
		messages = append(messages, message{Role: "assistant", Content: "lookup_order " + r.ToolCall}, message{Role: "tool", Content: string(b)})
		r = a.chat(ctx, messages)
	}
	span.AddEvent("task.completed")
	return r.Content
}

// chat calls the model inside a chat span.
func (a *agent) chat(ctx context.Context, messages []message) reply {
	_, span := a.tracer.Start(ctx, "chat "+model, trace.WithSpanKind(trace.SpanKindClient))
	defer span.End()
	prompt, _ := json.Marshal(messages)
	span.SetAttributes(attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.request.model", model),
		attribute.String("gen_ai.input.messages", string(prompt))) // content: evalgate never keeps it
	r := complete(messages, len(prompt))
	span.SetAttributes(attribute.String("gen_ai.response.model", model),
		attribute.Int("gen_ai.usage.input_tokens", r.In), attribute.Int("gen_ai.usage.output_tokens", r.Out))
	return r
}

var orders = map[string]map[string]string{"A-17": {"status": "shipped", "shippedOn": "2026-11-20"}}

// tool runs lookup_order inside an execute_tool span.
func (a *agent) tool(ctx context.Context, orderID string) map[string]string {
	_, span := a.tracer.Start(ctx, "execute_tool lookup_order", trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_tool"), attribute.String("gen_ai.tool.name", "lookup_order"),
		attribute.String("gen_ai.tool.call.arguments", `{"orderId":"`+orderID+`"}`)))
	defer span.End()
	span.AddEvent("tool.called")
	order, ok := orders[orderID]
	if !ok {
		err := errors.New("no such order")
		span.AddEvent("tool.failed")
		span.SetAttributes(attribute.String("error.type", "OrderNotFound"))
		span.SetStatus(codes.Error, err.Error())
		return map[string]string{"orderId": orderID, "error": err.Error()}
	}
	return map[string]string{"orderId": orderID, "status": order["status"], "shippedOn": order["shippedOn"]}
}

var orderID = regexp.MustCompile(`\b([A-Z]-\d+)\b`)

// complete is the agent's model, an offline stand-in for a tool-calling
// chat model, as in model.mjs: asked about an order it calls
// lookup_order, then words the result.
func complete(messages []message, promptBytes int) reply {
	last := messages[len(messages)-1]
	var r reply
	switch {
	case last.Role == "tool":
		var res map[string]string
		json.Unmarshal([]byte(last.Content), &res)
		if res["error"] != "" {
			r.Content = fmt.Sprintf("I could not find order %s: %s.", res["orderId"], res["error"])
		} else {
			r.Content = fmt.Sprintf("Order %s has %s; it left the warehouse on %s.", res["orderId"], res["status"], res["shippedOn"])
		}
	case orderID.MatchString(last.Content):
		r.ToolCall = orderID.FindStringSubmatch(last.Content)[1]
	default:
		r.Content = "Which order do you mean? Give me its number, such as A-17."
	}
	r.In = (promptBytes + 3) / 4
	r.Out = (len(r.Content) + len(r.ToolCall) + 3) / 4
	return r
}
