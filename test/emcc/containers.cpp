// containers.cpp — std::map, std::vector, std::string, iostream, a virtual
// call and a C++ exception (JS-based EH: invoke_* imports).
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

struct Shape {
  virtual ~Shape() = default;
  virtual double area() const = 0;
  virtual std::string name() const = 0;
};
struct Rect : Shape {
  double w, h;
  Rect(double w, double h) : w(w), h(h) {}
  double area() const override { return w * h; }
  std::string name() const override { return "rect"; }
};
struct Circle : Shape {
  double r;
  explicit Circle(double r) : r(r) {}
  double area() const override { return 3.14159 * r * r; }
  std::string name() const override { return "circle"; }
};

static int parse(const std::string &s) {
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') throw std::invalid_argument("not a number: " + s);
    v = v * 10 + (c - '0');
  }
  return v;
}

int main() {
  std::map<std::string, int> counts;
  const char *words[] = {"pear", "fig", "pear", "kiwi", "fig", "pear"};
  for (const char *w : words) counts[w]++;
  for (const auto &kv : counts) std::cout << kv.first << '=' << kv.second << '\n';
  std::vector<std::unique_ptr<Shape>> shapes;
  for (int i = 1; i <= 4; i++) {
    if (i % 2) shapes.emplace_back(new Rect(i, i + 1));
    else shapes.emplace_back(new Circle(i));
  }
  double total = 0;
  for (const auto &s : shapes) {
    std::cout << s->name() << ' ' << s->area() << '\n';
    total += s->area();
  }
  std::cout << "total " << total << '\n';
  for (const char *s : {"123", "4x5", "77"}) {
    try {
      int v = parse(s);
      std::cout << "parsed " << v << '\n';
    } catch (const std::exception &e) {
      std::cout << "caught " << e.what() << '\n';
    }
  }
  return 0;
}
